// The transcript: a ListView that instantiates delegates only for the rows on screen.
// Each message shows its role, time and model, then one block per part; collapsible blocks
// (reasoning, tool results, long unsupported content) keep their own expanded state.
import QtQuick
import QtQuick.Controls

ListView {
    id: list
    model: transcriptModel
    clip: true
    spacing: 6
    reuseItems: true
    boundsBehavior: Flickable.StopAtBounds
    ScrollBar.vertical: ScrollBar { policy: ScrollBar.AlwaysOn }

    // Opens at the latest message and stays there while rows render or goose appends,
    // until the user scrolls away from the end.
    property bool stickToEnd: true
    onCountChanged: if (stickToEnd) Qt.callLater(positionViewAtEnd)
    onContentHeightChanged: if (stickToEnd) Qt.callLater(positionViewAtEnd)
    onMovementEnded: stickToEnd = atYEnd
    function openAtEnd() { stickToEnd = true; positionViewAtEnd() }

    // Keyboard: arrows scroll a line, Page Up/Down a screen, Home/End jump.
    focus: true
    activeFocusOnTab: true
    function scrollBy(delta) {
        stickToEnd = false
        contentY = Math.max(originY, Math.min(contentY + delta, originY + contentHeight - height))
        if (atYEnd) stickToEnd = true
    }
    Keys.onUpPressed: scrollBy(-60)
    Keys.onDownPressed: scrollBy(60)
    Keys.onPressed: (event) => {
        if (event.key === Qt.Key_PageDown || event.key === Qt.Key_Space) { scrollBy(height * 0.9); event.accepted = true }
        else if (event.key === Qt.Key_PageUp) { scrollBy(-height * 0.9); event.accepted = true }
        else if (event.key === Qt.Key_Home) { stickToEnd = false; positionViewAtBeginning(); event.accepted = true }
        else if (event.key === Qt.Key_End) { openAtEnd(); event.accepted = true }
    }
    // The empty state: what to do when there is nothing to read.
    Text {
        parent: list
        anchors.centerIn: parent
        width: parent.width - 40
        visible: list.count === 0
        horizontalAlignment: Text.AlignHCenter
        wrapMode: Text.Wrap
        textFormat: Text.PlainText
        color: theme.muted
        text: emptyText
    }

    function showRow(row) {
        stickToEnd = false
        positionViewAtIndex(row, ListView.Center)
        currentIndex = row
    }

    delegate: Rectangle {
        id: card
        required property int index
        required property string roleLabel
        required property string timeLabel
        required property string modelLabel
        required property bool agentOnly
        required property var blocks
        required property bool loaded
        required property int messageRow
        required property bool hiddenRow
        width: ListView.view.width - 14
        x: 4
        visible: !hiddenRow
        height: hiddenRow ? 0 : column.implicitHeight + 16
        radius: 6
        color: roleLabel === "User" ? theme.userCard : (roleLabel === "Tool" ? theme.toolCard : theme.card)
        border.color: agentOnly ? theme.warning : theme.border
        border.width: 1

        MouseArea {
            anchors.fill: parent
            acceptedButtons: Qt.RightButton
            onClicked: transcriptActions.contextMenu(card.messageRow)
        }

        Column {
            id: column
            x: 10; y: 8
            width: parent.width - 20
            spacing: 4

            Row {
                spacing: 8
                // Labels and previews come from the history: always plain text, never HTML.
                Text { text: card.loaded ? card.roleLabel : "…"; font.bold: true; color: theme.text; textFormat: Text.PlainText }
                Text { text: card.timeLabel; color: theme.muted; textFormat: Text.PlainText }
                Text { text: card.modelLabel; color: theme.muted; visible: card.modelLabel !== ""; textFormat: Text.PlainText }
                Text {
                    text: "agent only — hidden from the user"
                    color: theme.warning; visible: card.agentOnly; font.italic: true
                    textFormat: Text.PlainText
                }
            }

            Repeater {
                model: card.blocks
                delegate: Column {
                    id: block
                    required property var modelData
                    required property int index
                    property bool expanded: !modelData.collapsed
                    width: column.width
                    spacing: 2

                    Text {
                        visible: block.modelData.title !== ""
                        width: parent.width
                        // Rich text cannot elide: long titles wrap (at most three lines).
                        wrapMode: Text.Wrap
                        maximumLineCount: 3
                        font.bold: true
                        textFormat: Text.RichText
                        color: block.modelData.error ? theme.error : theme.accent
                        text: (block.modelData.collapsible ? (block.expanded ? "▾ " : "▸ ") : "")
                              + block.modelData.title_html
                              + (block.modelData.size_label ? "  (" + block.modelData.size_label + ")" : "")
                        MouseArea {
                            anchors.fill: parent
                            enabled: block.modelData.collapsible
                            cursorShape: enabled ? Qt.PointingHandCursor : Qt.ArrowCursor
                            onClicked: block.expanded = !block.expanded
                        }
                    }
                    Text {
                        visible: block.modelData.collapsible && !block.expanded && block.modelData.preview !== ""
                        width: parent.width
                        text: block.modelData.preview
                        textFormat: Text.PlainText
                        color: theme.muted
                        elide: Text.ElideRight
                        font.italic: true
                    }
                    TextEdit {
                        visible: block.modelData.html !== "" && (!block.modelData.collapsible || block.expanded)
                        width: parent.width
                        readOnly: true
                        selectByMouse: true
                        textFormat: TextEdit.RichText
                        wrapMode: TextEdit.Wrap
                        // Reasoning reads as reasoning: indented behind a rule, muted, italic.
                        property bool reasoning: block.modelData.kind === "reasoning"
                        leftPadding: reasoning ? 14 : 0
                        font.italic: reasoning
                        color: block.modelData.error ? theme.error : (reasoning ? theme.muted : theme.text)
                        text: visible ? block.modelData.html : ""
                        onLinkActivated: (link) => transcriptActions.linkActivated(card.messageRow, block.index, link)
                        Rectangle {
                            visible: parent.reasoning
                            x: 3
                            width: 3
                            height: parent.height
                            radius: 1
                            color: theme.border
                        }
                    }
                    Image {
                        visible: block.modelData.image_index >= 0
                        source: visible ? "image://parts/" + card.messageRow + "/" + block.modelData.image_index : ""
                        sourceSize.height: 220
                        fillMode: Image.PreserveAspectFit
                        asynchronous: true
                        cache: false
                        MouseArea {
                            anchors.fill: parent
                            cursorShape: Qt.PointingHandCursor
                            onClicked: transcriptActions.openImage(card.messageRow, block.modelData.image_index)
                        }
                    }
                }
            }
        }
    }
}
