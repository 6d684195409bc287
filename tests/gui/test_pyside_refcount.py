"""Guards the PySide6 pin: models return None for roles they do not serve, thousands of times a
second. PySide6 6.12.0 dropped a reference to None on each such return, which on Python 3.11
aborts the process ("deallocating None") after a few thousand calls."""

import sys

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt


class _NoneModel(QAbstractListModel):
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 10

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> object:
        return None


def test_returning_none_through_cpp_keeps_none_alive(qapp: object) -> None:
    del qapp
    model = _NoneModel()
    before = sys.getrefcount(None)
    for row in range(5_000):
        model.index(row % 10, 0).data(Qt.ItemDataRole.DisplayRole)
    assert abs(sys.getrefcount(None) - before) < 100
