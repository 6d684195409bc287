// The transcript: a ListView that instantiates delegates only for the rows on screen.
// Each message shows its role, time and model, then one block per part; collapsible blocks
// (reasoning, tool results, long unsupported content) keep their own expanded state.
pragma ComponentBehavior: Bound
import QtQuick
import QtQuick.Controls

ListView {
    id: list
    // What TranscriptView gives the view, set before it is first built: required properties,
    // not context properties, so that qmllint checks every name used below.
    required property var transcriptModel
    required property var navigator
    required property var transcriptActions
    required property var theme
    property string emptyText
    model: transcriptModel
    clip: true
    // No spacing between rows: a folded row (agent-only, shaped away, inside a closed group of
    // tool calls) has no height, and spacing would still leave a gap for each of them.
    spacing: 0
    // Delegates are built afresh, not reused: a reused one let go of a row taller than the view
    // (a long answer above the last message) and built it again, 20 times a second for as long
    // as the session was open at its end — 40 ms of text layout each time.
    reuseItems: false
    // The view goes where this file places it, never after the current row by itself: it kept
    // moving the view a pixel a frame toward the last row while that row's place settled.
    highlightFollowsCurrentItem: false
    boundsBehavior: Flickable.StopAtBounds
    // Dragging the bar moves the view without a movement of its own: it lets a hit go too.
    ScrollBar.vertical: ScrollBar {
        policy: ScrollBar.AlwaysOn
        onPressedChanged: if (pressed) list.pinnedRow = -1
    }

    // Opens at the latest message and stays there while rows render or goose appends,
    // until the user scrolls away from the end.
    property bool stickToEnd: true
    onCountChanged: if (stickToEnd) Qt.callLater(followEnd)
    onContentHeightChanged: {
        if (stickToEnd) Qt.callLater(followEnd)
        if (pinnedRow >= 0) Qt.callLater(keepPinned)
    }
    // Asked for later, so checked when it runs: a search hit shown meanwhile keeps its place.
    function followEnd() { if (stickToEnd) toEnd() }
    // positionViewAtEnd lets go of every row built when the last is not among them, places the
    // view by its estimate and builds the rows again: a tall row above the last, just built, was
    // built twice (40–60 ms each). When the row before the last is built, the view goes to the
    // end by position first, which builds the last row among the others.
    function toEnd() {
        var before = count > 1 && !itemAtIndex(count - 1) ? itemAtIndex(count - 2) : null
        if (before) contentY = Math.max(originY, Math.round(before.y + before.height - height / 2))
        positionViewAtEnd()
    }
    onMovementEnded: stickToEnd = atYEnd
    // A hit shown by showMatch stays at the top while the rows around it render and change
    // height, until the reader moves the view (or another row is shown): at most 100 times.
    property int pinnedRow: -1
    property int pinsLeft: 0
    onMovementStarted: pinnedRow = -1
    function keepPinned() {
        if (pinnedRow < 0 || pinnedRow >= count || pinsLeft <= 0) { pinnedRow = -1; return }
        pinsLeft -= 1
        placeMatch(pinnedRow)
    }
    // How many pieces of each long block were laid out ("row:block"), for when it is built again:
    // it starts with as many, up to `piecesAtOnce` (four pieces of a line with nowhere to wrap
    // laid out in one turn stalled Show more 57–91 ms; two, 37–41 ms).
    property var piecesShown: ({})
    readonly property int piecesAtOnce: 2
    function piecesBuilt(row, number) { return Math.min(piecesShown[row + ":" + number] || 1, piecesAtOnce) }
    // The latest message is the current one: a ListView keeps its current row's delegate alive,
    // and row 0's would have its page rendered for nothing.
    function openAtEnd() { stickToEnd = true; pinnedRow = -1; piecesShown = {}; currentIndex = count - 1; toEnd() }

    // Keyboard: arrows scroll a line, Page Up/Down a screen, Home/End jump.
    focus: true
    activeFocusOnTab: true
    function scrollBy(delta) {
        stickToEnd = false
        pinnedRow = -1
        contentY = Math.max(originY, Math.min(contentY + delta, originY + contentHeight - height))
        if (atYEnd) stickToEnd = true
    }
    Keys.onUpPressed: scrollBy(-60)
    Keys.onDownPressed: scrollBy(60)
    // Enter and Space open or close the block that has the keyboard (Tab chooses it, see
    // TranscriptView); Space pages down when that block does not fold. W wraps or unwraps its
    // long lines.
    Keys.onPressed: (event) => {
        if (event.key === Qt.Key_Return || event.key === Qt.Key_Enter) { toggleFocused(); event.accepted = true }
        else if (event.key === Qt.Key_Space) { if (!toggleFocused()) scrollBy(height * 0.9); event.accepted = true }
        else if (event.key === Qt.Key_W && event.modifiers === Qt.NoModifier) { event.accepted = wrapFocused() }
        else if (event.key === Qt.Key_PageDown) { scrollBy(height * 0.9); event.accepted = true }
        else if (event.key === Qt.Key_PageUp) { scrollBy(-height * 0.9); event.accepted = true }
        else if (event.key === Qt.Key_Home) { stickToEnd = false; pinnedRow = -1; positionViewAtBeginning(); event.accepted = true }
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
        color: list.theme.muted
        text: list.emptyText
    }

    // A search hit or a find: its row at the top of the view, kept there while the view
    // settles (see pinnedRow) — unless its first match would be below the view: then that
    // block's top is, or for a tall block (416 lines of output) the match, a third down.
    function showMatch(row) {
        stickToEnd = false
        currentIndex = row
        pinnedRow = row
        pinsLeft = 100
        placeMatch(row)
    }
    function placeMatch(row) {
        positionViewAtIndex(row, ListView.Beginning)
        var card = itemAtIndex(row)
        if (!card) return
        // qmllint disable missing-property
        var item = blockAt(row, card.firstMatch())  // the delegates' own functions
        if (!item) return
        var mark = item.markY()
        // qmllint enable missing-property
        var top = card.y + item.mapToItem(card, 0, 0).y
        var end = originY + Math.max(0, contentHeight - height)
        if (mark > 0 && top + mark + 20 > contentY + height)
            contentY = Math.min(top + mark - height / 3, end)
        else if (mark < 0 && top + Math.min(item.height, 40) > contentY + height)
            contentY = Math.min(top - 8, end)
    }
    function showRowAtTop(row) {
        stickToEnd = false
        pinnedRow = -1
        positionViewAtIndex(row, ListView.Beginning)
        currentIndex = row
    }
    // Back returns to where a transcript was left: `row` at the top, `offset` pixels down it.
    function showRowAtOffset(row, offset) {
        showRowAtTop(row)
        if (offset > 0) contentY = Math.min(contentY + offset, originY + Math.max(0, contentHeight - height))
    }
    function topRow() {
        var row = indexAt(20, contentY + 2)
        return row < 0 ? 0 : row
    }
    function topOffset() {
        var card = itemAtIndex(topRow())
        return card ? Math.max(0, Math.round(contentY - card.y)) : 0
    }
    function bottomRow() {
        var row = indexAt(20, contentY + height - 2)
        return row < 0 ? count - 1 : row
    }
    function blockAt(row, number) {
        var card = row >= 0 ? itemAtIndex(row) : null
        // qmllint disable missing-property
        return card ? card.blockItem(number) : null  // the delegate's own function
        // qmllint enable missing-property
    }
    function focusedBlock() { return blockAt(list.navigator.focusRow, list.navigator.focusBlock) }
    // Brings the block that has the keyboard into view: its row first, then the block itself
    // when the row is taller than the view.
    function revealFocus() {
        if (list.navigator.focusRow < 0) return
        stickToEnd = false
        pinnedRow = -1
        positionViewAtIndex(list.navigator.focusRow, ListView.Contain)
        var card = itemAtIndex(list.navigator.focusRow)
        var item = focusedBlock()
        if (!card || !item) return
        var top = card.y + item.mapToItem(card, 0, 0).y
        var bottom = top + item.height
        if (top < contentY) contentY = top - 8
        else if (bottom > contentY + height) contentY = Math.min(top - 8, bottom - height + 8)
    }
    function wrapFocused() {
        var item = focusedBlock()
        if (!item || item.modelData.html.indexOf("<pre") < 0) return false
        list.transcriptModel.toggleWrap(list.navigator.focusRow, list.navigator.focusBlock)
        return true
    }
    function toggleFocused() {
        var item = focusedBlock()
        if (!item || !item.modelData.collapsible) return false
        stickToEnd = false  // what was opened stays where it is, not the session's end
        pinnedRow = -1
        list.transcriptModel.toggleBlock(list.navigator.focusRow, list.navigator.focusBlock, item.expanded)
        return true
    }

    // A row: its card and the gap below it, nothing at all when it is folded.
    delegate: Item {
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
        required property bool heldRow
        required property var expandedBlocks
        required property bool muted
        function blockItem(number) { return blockRepeater.itemAt(number) }
        function firstMatch() {
            for (var number = 0; number < blocks.length; number++)
                if (blocks[number].matched) return number
            return -1
        }
        width: ListView.view.width - 14
        x: 4
        // A held row (see MessageRole.HELD) is a screen of nothing until it is asked again.
        visible: !hiddenRow && !heldRow
        height: hiddenRow ? 0 : (heldRow ? ListView.view.height : frame.height + 6)
        // A row that starts above the view and grows (its pieces laid out) while the view keeps
        // to the end moves the view down with it, at once: else the rows below were pushed out
        // of the view and let go, and the view placed again by the list's estimate of them
        // built this row afresh — for ever, one piece at a time. (Rows inside the view are
        // left to followEnd: moving the view for each as it rendered doubled the start-up's
        // stall.)
        property real laidHeight: 0
        onHeightChanged: {
            if (list.stickToEnd && laidHeight > 0 && index < list.count - 1 && y < list.contentY)
                list.contentY += height - laidHeight
            laidHeight = height
        }
        Rectangle {
        id: frame
        width: parent.width
        height: column.implicitHeight + 16
        radius: 6
        color: card.roleLabel === "User" ? list.theme.userCard : (card.roleLabel === "Tool" ? list.theme.toolCard : list.theme.card)
        border.color: card.agentOnly ? list.theme.warning : list.theme.border
        border.width: 1

        // The block that has the keyboard is outlined (only while the transcript has it).
        Rectangle {
            property var target: (list.activeFocus && list.navigator.focusRow === card.messageRow
                                  && blockRepeater.count > list.navigator.focusBlock)
                                 ? blockRepeater.itemAt(list.navigator.focusBlock) : null
            visible: target !== null
            x: column.x - 5
            y: target ? column.y + target.y - 3 : 0
            width: column.width + 10
            height: target ? target.height + 6 : 0
            radius: 4
            color: "transparent"
            border.color: list.theme.accent
            border.width: 2
        }

        MouseArea {
            anchors.fill: parent
            acceptedButtons: Qt.RightButton
            onClicked: list.transcriptActions.contextMenu(card.messageRow)
        }

        Column {
            id: column
            x: 10; y: 8
            width: parent.width - 20
            spacing: 4

            Flow {
                width: column.width
                spacing: 8
                // A narrow card (at 800 px) puts a label that does not fit on the next line,
                // never past the card's edge. Labels and previews come from the history:
                // always plain text, never HTML.
                Text { text: card.loaded ? card.roleLabel : "…"; font.bold: true; color: list.theme.text; textFormat: Text.PlainText }
                Text { text: card.timeLabel; color: list.theme.muted; textFormat: Text.PlainText }
                Text {
                    text: card.modelLabel; color: list.theme.muted; visible: card.modelLabel !== ""
                    textFormat: Text.PlainText
                    // A name longer than the card is cut in the middle, not past its edge.
                    width: Math.min(implicitWidth, column.width); elide: Text.ElideMiddle
                }
                Text {
                    text: "agent only — hidden from the user"
                    color: list.theme.warning; visible: card.agentOnly; font.italic: true
                    textFormat: Text.PlainText
                }
            }

            // A folded row (agent-only, shaped away, inside a closed group) builds no blocks:
            // it has no height, and its blocks cost as much as a shown row's (4–10 ms each
            // opening a coding session at its end).
            Repeater {
                id: blockRepeater
                model: card.hiddenRow ? [] : card.blocks
                delegate: Column {
                    id: block
                    required property var modelData
                    required property int index
                    // Opened or closed by the user (or Expand all / Collapse all), else the
                    // block's own default; the state lives in the model, so it survives scrolling.
                    property var chosen: card.expandedBlocks ? card.expandedBlocks[index] : undefined
                    property bool expanded: (chosen === true || chosen === false) ? chosen : !modelData.collapsed
                    width: column.width
                    spacing: 2
                    // Where the block's first match is, down from its top (-1: none shown):
                    // the first place its text holds the highlighted words.
                    function markY() {
                        var wanted = (modelData.first_mark || "").toLowerCase()
                        if (wanted === "" || !bodyView.visible) return -1
                        for (var number = 0; number < pieceRepeater.count; number++) {
                            var piece = pieceRepeater.itemAt(number)
                            // qmllint disable missing-property
                            var at = piece ? piece.getText(0, piece.length).toLowerCase().indexOf(wanted) : -1
                            if (at >= 0) return bodyView.y + piece.y + piece.positionToRectangle(at).y
                            // qmllint enable missing-property
                        }
                        return -1
                    }

                    // The title, and for a block with wide lines of code or output the switch of
                    // its long lines (a code block's own header has the same switch as a link).
                    Item {
                        visible: block.modelData.title !== ""
                        width: parent.width
                        height: titleText.height
                        Text {
                            id: titleText
                            width: parent.width - (wrapSwitch.visible ? wrapSwitch.width + 8 : 0)
                            // Rich text cannot elide: long titles wrap (at most three lines).
                            wrapMode: Text.Wrap
                            maximumLineCount: 3
                            font.bold: true
                            textFormat: Text.RichText
                            color: block.modelData.error ? list.theme.error : list.theme.accent
                            text: (block.modelData.collapsible ? (block.expanded ? "▾ " : "▸ ") : "")
                                  + block.modelData.title_html
                                  + (block.modelData.size_label ? "  (" + block.modelData.size_label + ")" : "")
                            MouseArea {
                                anchors.fill: parent
                                enabled: block.modelData.collapsible
                                cursorShape: enabled ? Qt.PointingHandCursor : Qt.ArrowCursor
                                onClicked: {
                                    list.navigator.choose(card.messageRow, block.index)
                                    list.stickToEnd = false  // the block opened stays in view
                                    list.pinnedRow = -1
                                    list.transcriptModel.toggleBlock(card.messageRow, block.index, block.expanded)
                                }
                            }
                        }
                        Text {
                            id: wrapSwitch
                            anchors.right: parent.right
                            visible: block.modelData.wide === true && bodyView.visible
                            text: block.modelData.wrap === false ? "Wrap" : "No wrap"
                            textFormat: Text.PlainText
                            color: list.theme.accent
                            MouseArea {
                                anchors.fill: parent
                                cursorShape: Qt.PointingHandCursor
                                onClicked: list.transcriptModel.toggleWrap(card.messageRow, block.index)
                            }
                        }
                    }
                    Text {
                        visible: block.modelData.collapsible && !block.expanded && block.modelData.preview !== ""
                        width: parent.width
                        text: block.modelData.preview
                        textFormat: Text.PlainText
                        color: list.theme.muted
                        elide: Text.ElideRight
                        font.italic: true
                    }
                    // Code and output wrap at the card's edge by default; switched to no wrap, a
                    // block keeps each line whole and scrolls sideways: nothing is cut off unseen.
                    Item {
                        id: bodyView
                        objectName: "blockView"
                        property bool scrolls: block.modelData.wrap === false && body.width > width + 1
                        visible: block.modelData.html !== "" && (!block.modelData.collapsible || block.expanded)
                        width: parent.width
                        height: body.height + (scrolls ? sideways.height : 0)
                        Flickable {
                            id: sidewaysView
                            objectName: "sidewaysView"
                            visible: bodyView.scrolls
                            anchors.fill: parent
                            contentWidth: body.width
                            contentHeight: body.height
                            clip: true
                            flickableDirection: Flickable.HorizontalFlick
                            boundsBehavior: Flickable.StopAtBounds
                            ScrollBar.horizontal: ScrollBar {
                                id: sideways
                                policy: ScrollBar.AlwaysOn
                            }
                        }
                        Column {
                            id: body
                            // In the sideways view only while it scrolls: a Flickable is a
                            // viewport, and a TextEdit builds the glyphs of every line in its
                            // viewport — in one as tall as itself, all 64,000 characters of a
                            // long text (a 90 ms stall), not the lines on screen.
                            parent: bodyView.scrolls ? sidewaysView.contentItem : bodyView
                            // A long text comes in pieces (`html_pieces`), laid out one a turn of
                            // the event loop: Show more's 256,000 characters in one TextEdit
                            // stalled the window 150 ms. A block built again (Show more, or
                            // scrolled back to) starts with as many as it had (`piecesBuilt`).
                            // Only the pieces laid out have a TextEdit: Show more's 1 MB is 64
                            // pieces, and 64 made at once stalled the window 46–89 ms.
                            property var pieces: bodyView.visible ? block.modelData.pieces : []
                            property int built: list.piecesBuilt(card.messageRow, block.index)
                            onBuiltChanged: {
                                list.piecesShown[card.messageRow + ":" + block.index] = built
                                lay()
                            }
                            onPiecesChanged: { laid.clear(); lay() }
                            Component.onCompleted: lay()
                            function lay() {
                                var wanted = Math.min(built, pieces.length)
                                while (laid.count < wanted) laid.append({ "html": pieces[laid.count] })
                            }
                            ListModel { id: laid }
                            Timer {
                                interval: 1
                                repeat: true
                                running: body.built < body.pieces.length
                                onTriggered: body.built += 1
                            }
                            Repeater {
                                id: pieceRepeater
                                model: laid
                                delegate: TextEdit {
                                    id: piece
                                    required property string html
                                    required property int index
                                    objectName: "blockBody"
                                    // Unwrapped, as wide as its longest line: the block scrolls
                                    // sideways as far as its widest piece.
                                    width: block.modelData.wrap === false ? Math.max(bodyView.width, contentWidth) : bodyView.width
                                    readOnly: true
                                    selectByMouse: true
                                    textFormat: TextEdit.RichText
                                    // A run with nowhere to wrap is laid out in quadratic time unless it
                                    // may break anywhere (the renderer says when a block has one).
                                    wrapMode: block.modelData.wrap_anywhere ? TextEdit.WrapAnywhere : TextEdit.Wrap
                                    // Reasoning reads as reasoning: indented behind a rule, muted, italic.
                                    property bool reasoning: block.modelData.kind === "reasoning"
                                    leftPadding: reasoning ? 14 : 0
                                    font.italic: reasoning
                                    color: block.modelData.error ? list.theme.error
                                           : ((reasoning || card.muted) ? list.theme.muted : list.theme.text)
                                    text: piece.html
                                    onLinkActivated: (link) => list.transcriptActions.linkActivated(card.messageRow, block.index, link)
                                    Rectangle {
                                        visible: piece.reasoning
                                        x: 3
                                        width: 3
                                        height: piece.height
                                        radius: 1
                                        color: list.theme.border
                                    }
                                }
                            }
                        }
                    }
                    // A thumbnail at most 220 px high, and at least 96 (an icon or a crop of a
                    // few pixels is enlarged, crisply), never wider than the card.
                    Image {
                        objectName: "thumbnail"
                        visible: block.modelData.image_index >= 0
                        source: visible ? "image://parts/" + card.messageRow + "/" + block.modelData.image_index : ""
                        sourceSize.height: 220
                        height: implicitHeight > 0 ? Math.max(96, implicitHeight) : 0
                        width: implicitHeight > 0
                               ? Math.min(parent.width, implicitWidth * height / implicitHeight) : 0
                        smooth: implicitHeight >= 96
                        fillMode: Image.PreserveAspectFit
                        asynchronous: true
                        cache: false
                        MouseArea {
                            anchors.fill: parent
                            cursorShape: Qt.PointingHandCursor
                            onClicked: list.transcriptActions.openImage(card.messageRow, block.modelData.image_index)
                        }
                    }
                }
            }
        }
        }
    }
}
