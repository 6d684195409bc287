"""Which date group a session falls in: Today, Yesterday, Previous 7 days, then by month."""

from datetime import date, datetime, timedelta

UNKNOWN_DATE = "Unknown date"
"""The group of sessions with no recorded time, listed last (their lists sort them there)."""


def group_label(when: datetime | None, today: date) -> str:
    if when is None:
        return UNKNOWN_DATE
    day = when.astimezone().date()
    if day >= today:
        return "Today"
    if day == today - timedelta(days=1):
        return "Yesterday"
    if day > today - timedelta(days=7):
        return "Previous 7 days"
    return day.strftime("%B %Y")


def relative_time(when: datetime | None, now: datetime) -> str:
    if when is None:
        return ""
    seconds = int((now - when).total_seconds())
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    if seconds < 7 * 86400:
        return f"{seconds // 86400} d ago"
    return when.astimezone().strftime("%d %b %Y")
