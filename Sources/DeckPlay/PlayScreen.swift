import DeckBase
import DeckCore

/// The screen of `menudeck play`, a pure function of the state and the terminal's size: lines
/// of text, the only escape sequences in them the hint labels' colours (none when
/// `options.color` is off). The stacked deck as the food-menu app draws it: the top card, the
/// next two cards' edges stacked behind it, a counter, and a line of keys.
package enum PlayScreen {
  /// The smallest terminal the deck is drawn in; below it, one line says so.
  package static let minColumns = 40
  package static let minRows = 12
  /// The widest card, in columns.
  package static let maxCardColumns = 36
  /// Lines the card box takes (its two borders and five lines of text).
  static let boxLines = 7

  package static func render(_ state: PlayState, size: (columns: Int, rows: Int)) -> [String] {
    let (columns, rows) = size
    guard columns >= minColumns, rows >= minRows else {
      let line =
        "terminal too small: \(max(columns, 0))x\(max(rows, 0)), needs \(minColumns)x\(minRows)"
      return [Text.truncate(line, max(columns, 1))]
    }
    var lines = state.options.carousel ? carousel(state, columns) : deck(state, columns)
    let top = max(0, (rows - lines.count) / 2)
    lines.insert(contentsOf: Array(repeating: "", count: top), at: 0)
    return Array(lines.prefix(rows))
  }

  // MARK: - The deck

  private static func deck(_ state: PlayState, _ columns: Int) -> [String] {
    let width = min(columns - 8, maxCardColumns)
    let left = (columns - width) / 2
    let session = state.deck
    let count = session.original.count
    var lines: [String] = []
    var counter: String
    switch session.status {
    case .inProgress: counter = "\(session.swiped.count + 1) / \(count)"
    case .picked: counter = "picked \(session.swiped.count) / \(count)"
    case .noCards: counter = "0 / 0"
    case .finishedSwiping, .abandoned: counter = "\(session.swiped.count) / \(count) swiped"
    }
    lines.append(header(state.options.title, counter, columns))

    let box: [String]
    var label = ""
    var behind = 0
    var help: [[String]]
    switch session.status {
    case .inProgress:
      let card = state.cards[session.top!]
      if state.showsReasons { return lines + reasons(card, columns) }
      box = cardBox(card, width)
      behind = min(2, session.unswiped.count - 1)
      if let direction = state.hint {
        label = colored(
          state.options.labels.hint(direction), direction == .right ? "32" : "31",
          state.options.color)
        label = place(label, in: columns, toward: direction, left: left, width: width)
      } else if let message = state.message {
        label = center(message, columns)
      } else if state.outcome?.swipe != nil {
        label = center("release to swipe \(state.outcome!.swipe!.name)", columns)
      }
      help = [
        ["←/→ drag", "enter/space release", "h/l swipe", "q quit"],
        ["←/→ drag", "⏎ release", "h/l swipe", "q quit"],
      ]
    case .picked(let index):
      box = cardBox(state.cards[index], width)
      label = center(colored("Today's pick!", "32", state.options.color), columns)
      help = [["q quit"]]
    case .noCards:
      box = messageBox(["No Cards", "", "Fetch the cards again? (f)"], width)
      label = state.message.map { center($0, columns) } ?? ""
      help = [["f fetch the cards again", "q quit"], ["f fetch again", "q quit"]]
    case .finishedSwiping:
      let right = session.swiped.filter { $0.direction == .right }.count
      box = messageBox(
        ["Finished Swiping", "", "\(right) right, \(session.swiped.count - right) left"], width)
      help =
        state.options.mode == .all
        ? [["r reset the deck", "q quit"], ["r reset", "q quit"]]
        : [["f fetch the cards again", "q quit"], ["f fetch again", "q quit"]]
    case .abandoned:
      box = messageBox(["Abandoned"], width)
      help = [["q quit"]]
    }
    lines.append(label)
    lines += shifted(box, left: left, width: width, columns: columns, steps: state.steps)
    for k in 0..<2 {
      let inset = k + 1
      lines.append(
        k < behind
          ? spaces(left + inset) + "╰" + String(repeating: "─", count: width - 2 * inset - 2)
            + "╯"
          : "")
    }
    lines.append(helpLine(help, columns))
    return lines
  }

  /// The top card's reasons (`?`): its name and why it is where it is, in a box as wide as the
  /// terminal allows, then the key that hides them.
  private static func reasons(_ card: PlayCard, _ columns: Int) -> [String] {
    let body =
      ["why '\(card.name)' is here:"]
      + (card.reasons.isEmpty ? ["(no reasons known)"] : card.reasons)
    var box = ["╭" + String(repeating: "─", count: columns - 4) + "╮"]
    for text in body {
      box.append("│ " + Text.padRight(Text.truncate(text, columns - 6), columns - 6) + " │")
    }
    box.append("╰" + String(repeating: "─", count: columns - 4) + "╯")
    return [""] + box.map { " " + $0 } + [helpLine([["? hide the reasons", "q quit"]], columns)]
  }

  /// The first line: the title on the left, the counter on the right.
  private static func header(_ title: String, _ counter: String, _ columns: Int) -> String {
    let room = columns - Text.displayWidth(counter) - 3
    let name = Text.truncate(title, max(room, 1))
    let gap = columns - 2 - Text.displayWidth(name) - Text.displayWidth(counter)
    return " " + name + spaces(max(gap, 1)) + counter
  }

  /// A card's box: name; category and price; tags; allergens; diets.
  private static func cardBox(_ card: PlayCard, _ width: Int) -> [String] {
    var second = card.category
    if let price = card.price { second += " · " + Text.number(price) }
    return textBox(
      [
        card.name, second, "tags: " + list(card.tags), "allergens: " + list(card.allergens),
        "diets: " + list(card.diets),
      ], width)
  }

  private static func list(_ items: [String]) -> String {
    items.isEmpty ? "-" : items.joined(separator: ", ")
  }

  /// A box of centred lines (status screens), as tall as a card.
  private static func messageBox(_ text: [String], _ width: Int) -> [String] {
    var body = text.map { centerIn($0, width - 4) }
    while body.count < boxLines - 2 { body.append("") }
    return textBox(body, width)
  }

  /// A rounded box `width` columns wide around `body`, each line cut to fit (never inside a
  /// wide character) and padded.
  private static func textBox(_ body: [String], _ width: Int) -> [String] {
    let inner = width - 4
    var lines = ["╭" + String(repeating: "─", count: width - 2) + "╮"]
    for text in body.prefix(boxLines - 2) {
      lines.append("│ " + Text.padRight(Text.truncate(text, inner), inner) + " │")
    }
    lines.append("╰" + String(repeating: "─", count: width - 2) + "╯")
    return lines
  }

  /// The box drawn `steps` columns off centre and slanted: the top row leans one more column
  /// per three steps than the bottom one, as a card turns when it is dragged. Rows stay on
  /// screen.
  private static func shifted(
    _ box: [String], left: Int, width: Int, columns: Int, steps: Int
  ) -> [String] {
    let tilt = steps / 3
    let last = box.count - 1
    return box.enumerated().map { row, line in
      let lean = last == 0 ? 0 : (tilt * (last - row) + (tilt < 0 ? -last / 2 : last / 2)) / last
      let margin = min(max(left + steps + lean, 0), columns - width)
      return spaces(margin) + line
    }
  }

  /// The hint label over the card, on the side the card moves to.
  private static func place(
    _ label: String, in columns: Int, toward direction: SwipeDirection, left: Int, width: Int
  ) -> String {
    let labelWidth = Text.displayWidth(stripSGR(label))
    let at = direction == .right ? left + width - labelWidth : left
    return spaces(min(max(at, 0), max(columns - labelWidth, 0))) + label
  }

  /// The keys: the first set of items that fits, joined by two spaces, else the last one cut.
  private static func helpLine(_ sets: [[String]], _ columns: Int) -> String {
    for items in sets {
      let line = items.joined(separator: "  ")
      if Text.displayWidth(line) <= columns - 2 { return center(line, columns) }
    }
    return " " + Text.truncate(sets.last!.joined(separator: "  "), columns - 2)
  }

  // MARK: - The carousel

  private static func carousel(_ state: PlayState, _ columns: Int) -> [String] {
    let width = min(columns - 8, maxCardColumns)
    let left = (columns - width) / 2
    let c = state.carousel
    var lines: [String] = []
    guard let index = c.index else {
      lines.append(header(state.options.title, "0 / 0", columns))
      lines.append(state.message.map { center($0, columns) } ?? "")
      lines += messageBox(["No Cards", "", "Fetch the cards again? (f)"], width).map {
        spaces(left) + $0
      }
      lines += ["", ""]
      lines.append(
        helpLine([["f fetch the cards again", "q quit"], ["f fetch", "q quit"]], columns))
      return lines
    }
    lines.append(header(state.options.title, "\(index + 1) / \(c.count)", columns))
    let ends =
      c.count == 1 ? "the only card" : c.isAtStart ? "first card" : c.isAtEnd ? "last card" : ""
    lines.append(center(ends, columns))
    let box = cardBox(state.cards[index], width)
    let middle = box.count / 2
    for (row, line) in box.enumerated() {
      let before = row == middle && !c.isAtStart ? "‹" : " "
      let after = row == middle && !c.isAtEnd ? "›" : ""
      lines.append(spaces(left - 2) + before + " " + line + " " + after)
    }
    lines += ["", ""]
    lines.append(
      helpLine(
        [["→ previous", "← or enter next", "q quit"], ["→ prev", "←/⏎ next", "q quit"]], columns))
    return lines
  }

  // MARK: - Text

  private static func spaces(_ n: Int) -> String { String(repeating: " ", count: max(n, 0)) }

  private static func center(_ text: String, _ columns: Int) -> String {
    let plain = Text.displayWidth(stripSGR(text))
    let cut = plain <= columns ? text : Text.truncate(stripSGR(text), columns)
    return spaces((columns - Text.displayWidth(stripSGR(cut))) / 2) + cut
  }

  private static func centerIn(_ text: String, _ width: Int) -> String {
    let cut = Text.truncate(text, width)
    return spaces((width - Text.displayWidth(cut)) / 2) + cut
  }

  private static func colored(_ text: String, _ sgr: String, _ on: Bool) -> String {
    on ? "\u{1B}[1;\(sgr)m" + text + "\u{1B}[0m" : text
  }

  /// `text` without SGR sequences (ESC [ ... m), for widths and for colourless goldens.
  package static func stripSGR(_ text: String) -> String {
    guard text.contains("\u{1B}") else { return text }
    var out = ""
    var inEscape = false
    for scalar in text.unicodeScalars {
      if inEscape {
        if scalar == "m" { inEscape = false }
      } else if scalar == "\u{1B}" {
        inEscape = true
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// The bytes that draw `lines` over the whole screen: each line at its row, the rest of the
  /// row and the rows below cleared.
  package static func frame(_ lines: [String]) -> [UInt8] {
    var out = "\u{1B}[H"
    for (row, line) in lines.enumerated() {
      out += "\u{1B}[\(row + 1);1H" + line + "\u{1B}[K"
    }
    out += "\u{1B}[J"
    return Array(out.utf8)
  }
}
