"""The base of the messages a widget posts about itself."""

from __future__ import annotations

from typing import Generic, TypeVar

from textual.message import Message
from textual.widget import Widget

WidgetT = TypeVar("WidgetT", bound=Widget)


class ControlMessage(Message, Generic[WidgetT]):
    """A message about the widget that sent it: that widget is its `control`, so a handler can
    pick the sender by selector (`@on(ItemList.Highlighted, "#terminal")`)."""

    def __init__(self, control: WidgetT) -> None:
        super().__init__()
        self._control = control

    @property
    def control(self) -> WidgetT:
        return self._control
