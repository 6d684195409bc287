"""The window's menus and toolbar as data, as napari's app-model keeps them: one row per menu
entry — its id, text, shortcuts, menu, whether it is checkable, what it calls — and one
builder that makes the menu bar and the toolbar from the rows.

A row names what it calls, or the action it shows, by a dotted path from the window
(`finder.next`, `session_actions.undo`): actions made by the objects that enable them (the
session actions enabled by the selection, Back and Forward by the places behind and ahead,
the transcript's shaping) are shown by a row of their own, `made_by`, with their own text and
shortcuts. Whether an action is enabled is decided by the object that made it; a row's `when`
says whether it exists at all (File ▸ Open only in a window that can open another history).
tests/gui/test_actions.py checks every row is in its menu with its shortcuts."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

Key = str | QKeySequence.StandardKey
StandardKey = QKeySequence.StandardKey


@dataclass(frozen=True, slots=True)
class Action:
    """One menu entry: an action of its own, a submenu, or what another object made."""

    id: str
    menu: str
    """The menu it is in; a submenu after a slash (`&View/&Theme`)."""
    text: str = ""
    """Empty for an action `made_by` another object (which gives its text)."""
    keys: tuple[Key, ...] = ()
    slot: str = ""
    """What it calls: triggered, with `arg` when there is one, else toggled when checkable.
    A submenu's slot is called with the submenu before it shows."""
    arg: str | None = None
    checkable: bool = False
    exclusive: bool = False
    """One of the checkable rows of its menu of which only one is checked (View ▸ Theme)."""
    tip: str = ""
    group: int = 0
    """Rows of one menu are in groups, a separator between two."""
    made_by: str = ""
    """The action, list of actions or submenu another object made (a method is called)."""
    submenu: bool = False
    when: str = ""
    """The window's ability the row needs to exist ("open", "add"); empty: always."""


_ADD_TIP = "Show another history in this window, beside those open"
_REDACT_TIP = (
    "Copied messages and code have API keys, tokens, private keys and passwords "
    "replaced by [REDACTED:…], as `gander show --redact` does"
)
F, E, V, H = "&File", "&Edit", "&View", "&Help"
ACTIONS: tuple[Action, ...] = (
    Action("open_file", F, "&Open history file…", (StandardKey.Open,), "histories.open_file",
           when="open"),
    Action("open_folder", F, "Open history &folder…", (), "histories.open_folder", when="open"),
    Action("recent", F, "Open &recent", slot="histories.fill_recent", submenu=True, when="open"),
    Action("add_file", F, "&Add history file…", (), "histories.add_file", tip=_ADD_TIP,
           group=1, when="add"),
    Action("add_folder", F, "Add history f&older…", (), "histories.add_folder", tip=_ADD_TIP,
           group=1, when="add"),
    Action("agents", F, group=1, made_by="agent_menu"),
    Action("export", F, "&Export session…", ("Ctrl+Shift+S",), "exports.ask", group=2),
    Action("export_redacted", F, "Export session without &secrets…", (),
           "exports.ask_without_secrets", group=2),
    Action("quit", F, "&Quit", (StandardKey.Quit,), "close", group=3),
    Action("undo", E, made_by="session_actions.undo"),
    Action("redo", E, made_by="session_actions.redo"),
    Action("rename", E, group=1, made_by="session_actions.rename"),
    Action("archive", E, group=1, made_by="session_actions.archive"),
    Action("unarchive", E, group=1, made_by="session_actions.unarchive"),
    Action("copy_id", E, group=1, made_by="session_actions.copy_id"),
    Action("find", E, "&Find in transcript…", (StandardKey.Find,), "find_bar.open_bar", group=2),
    Action("find_next", E, "Find &next", (StandardKey.FindNext,), "finder.next", group=2),
    Action("find_previous", E, "Find &previous", (StandardKey.FindPrevious,), "finder.previous",
           group=2),
    Action("redact_copies", E, "Remove secrets from &copies", (), "options.redact_copies",
           checkable=True, tip=_REDACT_TIP, group=3),
    Action("search", E, "&Search all sessions", ("Ctrl+K",), "search_field.focus_and_select",
           group=4),
    Action("theme", V, "&Theme", submenu=True),
    *(
        Action(f"theme_{choice}", f"{V}/&Theme", label, (), "choose_theme", arg=choice,
               checkable=True, exclusive=True)
        for choice, label in (("system", "&System"), ("light", "&Light"), ("dark", "&Dark"))
    ),
    Action("show_hidden", V, "Show &agent-only messages", ("Ctrl+Shift+H",),
           "options.show_hidden", checkable=True, group=1),
    Action("shaping", V, group=1, made_by="shaping.actions"),
    Action("back", V, group=2, made_by="history.back_action"),
    Action("forward", V, group=2, made_by="history.forward_action"),
    Action("transcript_keys", V, group=3, made_by="transcript_view.keyboard_actions"),
    Action("prompts", V, group=3, made_by="prompts.action"),
    Action("focus_list", V, "Focus session &list", ("Ctrl+1",), "session_list.setFocus",
           group=4),
    Action("focus_transcript", V, "Focus &transcript", ("Ctrl+2",), "transcript_view.setFocus",
           group=4),
    Action("focus_usage", V, "Focus token &usage", ("Ctrl+3",), "usage_panel.setFocus",
           group=4),
    Action("usage", V, keys=("Ctrl+Shift+U",), group=4, made_by="usage_dock.toggleViewAction"),
    Action("help_shortcuts", H, "&Keyboard shortcuts", (), "help.show", arg="shortcuts"),
    Action("help_search", H, "&Search syntax", (), "help.show", arg="search"),
    Action("help_about", H, "&About Gander", (), "help.show", arg="about"),
    Action("log_folder", H, "Open &log folder", (), "help.open_log_folder"),
)  # fmt: skip
TOOLBAR = ("archive", "unarchive", "undo")
"""The Sessions toolbar's actions, after the search field (icons only: the Undo action's text
names what it undoes and would grow the bar)."""


def _at(root: object, path: str) -> Any:
    return reduce(getattr, path.split("."), root)


def _sequences(keys: Sequence[Key]) -> list[QKeySequence]:
    """A standard key the platform has no binding for (Quit under some styles) is none."""
    return [sequence for key in keys if not (sequence := QKeySequence(key)).isEmpty()]


class MenuBuilder:
    """Makes the menus of `ACTIONS` on `window`, resolving the rows' paths from it."""

    def __init__(
        self, window: QMainWindow, when: Callable[[str], bool], checked: Mapping[str, bool]
    ) -> None:
        """`when` says whether the window has an ability a row needs; `checked` the first
        state of checkable rows, by id (set before anything is connected)."""
        self._window = window
        self._when = when
        self._checked = checked
        self.menus: dict[str, QMenu] = {}
        """Each menu by its path (`&File`, `&View/&Theme`)."""
        self._groups: dict[str, int] = {}
        self._exclusive: dict[str, QActionGroup] = {}
        self.actions: dict[str, QAction] = {}
        """Each row's action by id (a row made by another object: its first action)."""

    def build(self, toolbar: QToolBar) -> dict[str, QAction]:
        """The menu bar, then `TOOLBAR`'s actions after what `toolbar` holds already."""
        for row in ACTIONS:
            if row.when and not self._when(row.when):
                continue
            self._add(row)
        toolbar.addActions([self.actions[name] for name in TOOLBAR])
        return self.actions

    def _menu(self, path: str) -> QMenu:
        if path not in self.menus:
            self.menus[path] = self._window.menuBar().addMenu(path)
        return self.menus[path]

    def _add(self, row: Action) -> None:
        menu = self._menu(row.menu)
        if self._groups.setdefault(row.menu, row.group) != row.group:
            menu.addSeparator()
            self._groups[row.menu] = row.group
        if row.made_by:
            made = _at(self._window, row.made_by)
            made = made() if callable(made) else made
            if isinstance(made, QMenu):
                self.actions[row.id] = menu.addMenu(made)
                return
            made = [made] if isinstance(made, QAction) else list(made)
            if row.keys:
                made[0].setShortcuts(_sequences(row.keys))
            menu.addActions(made)
            self.actions[row.id] = made[0]
            return
        if row.submenu:
            sub = menu.addMenu(row.text)
            self.menus[f"{row.menu}/{row.text}"] = sub
            if row.slot:
                fill = _at(self._window, row.slot)
                sub.aboutToShow.connect(lambda sub=sub, fill=fill: fill(sub))
            self.actions[row.id] = sub.menuAction()
            return
        self.actions[row.id] = self._action(row, menu)

    def _action(self, row: Action, menu: QMenu) -> QAction:
        action = QAction(row.text, self._window)
        if row.keys:
            action.setShortcuts(_sequences(row.keys))
        if row.tip:
            action.setToolTip(row.tip)
        handler = _at(self._window, row.slot)
        if row.checkable:
            action.setCheckable(True)
            action.setChecked(self._checked.get(row.id, False))
        if row.exclusive:
            self._exclusive.setdefault(row.menu, QActionGroup(self._window)).addAction(action)
        if row.arg is not None:
            action.triggered.connect(lambda _=False, h=handler, a=row.arg: h(a))
        elif row.checkable:
            action.toggled.connect(handler)
        else:
            action.triggered.connect(lambda _=False, h=handler: h())
        menu.addAction(action)
        return action
