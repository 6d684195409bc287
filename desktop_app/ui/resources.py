"""Where the shipped resources are: inside the wheel (`desktop_app/resources`) or the checkout."""

from pathlib import Path


def resource_path(*parts: str) -> Path:
    package = Path(__file__).resolve().parents[1]
    for root in (package / "resources", package.parent / "resources"):
        candidate = root.joinpath(*parts)
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"Gander resource missing: {'/'.join(parts)}")
