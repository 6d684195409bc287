"""How the open histories are named in the title bar, the status bar and their tooltip: one
history by where it is (`~/…`), several by how many, each path whole in the tooltip — never a
clipped list of paths joined by semicolons."""

from desktop_app.domain.source import SeveralHistories, Source
from desktop_app.rendering.formatting import home_relative


def open_readers(source: Source) -> list[Source]:
    return [r for _, r in source.readers()] if isinstance(source, SeveralHistories) else [source]


def histories_title(source: Source) -> str:
    readers = open_readers(source)
    if len(readers) == 1:
        return home_relative(readers[0].info().location)
    return f"{len(readers)} histories"


def histories_tip(source: Source) -> str:
    return "\n".join(
        f"{info.kind}: {home_relative(info.location)}"
        for info in (r.info() for r in open_readers(source))
    )
