import DeckBase
import DeckCore

/// A terminal call of `menudeck play` that failed (exit 74): the terminal's system error.
package struct PlayTerminalError: Error, CustomStringConvertible, Equatable, Sendable {
  package var message: String

  package init(_ message: String) { self.message = message }

  package var description: String { "the terminal: \(message)" }
}

/// The screen on a terminal: keys in, frames out, until the diner quits or the terminal closes.
package enum PlayTerminal {
  /// Plays `state` on the terminal of `input` and `output` and returns the state it ended in.
  /// `log` is told each entry to log as it happens; `refetch` builds the cards again (with
  /// this session's swipes).
  package static func play(
    _ state: PlayState, input: Int32, output: Int32, log: (PlayLogEntry) throws -> Void,
    refetch: () throws -> [PlayCard]
  ) throws -> PlayState {
    var state = state
    let screen = try call { () throws(SystemError) in
      try Terminal.RawScreen(input: input, output: output)
    }
    defer { screen.restore() }
    let notices = Terminal.resizeNotices()
    var decoder = PlayKeyDecoder()
    var size = Terminal.size(output) ?? (80, 24)
    var done = false
    while !done {
      screen.draw(PlayScreen.frame(PlayScreen.render(state, size: size)))
      let ready = try call { () throws(SystemError) in
        try Terminal.wait(input: input, notices: notices)
      }
      switch ready {
      case .resized:
        size = Terminal.size(output) ?? size
        continue
      case .closed:
        state = state.reduce(.quit).0
        done = true
      case .input(let bytes):
        for key in decoder.keys(bytes) where !done {
          let (next, effects) = state.reduce(key)
          state = next
          for effect in effects {
            switch effect {
            case .log(let entry): try log(entry)
            case .rebuild: state = state.refetched(try refetch())
            case .quit: done = true
            }
          }
        }
      }
    }
    screen.restore()
    return state
  }

  /// A terminal call's failure as a `PlayTerminalError`.
  static func call<T>(_ body: () throws(SystemError) -> T) throws(PlayTerminalError) -> T {
    do {
      return try body()
    } catch {
      throw PlayTerminalError(error.message)
    }
  }
}

extension PlayCard {
  /// The cards of `deck` as the screen shows them, with their `reasons` when given (one list
  /// per card).
  package static func cards(_ deck: Deck, _ catalog: Catalog, reasons: [[String]] = [])
    -> [PlayCard]
  {
    deck.cards.enumerated().map { n, card in
      let item = catalog.items[Int(card.item)]
      return PlayCard(
        id: item.id, name: item.name, category: item.category, tags: item.tags,
        price: item.price, allergens: item.allergens, diets: item.diets,
        propensity: card.propensity, prefixPropensity: card.prefixPropensity,
        reasons: n < reasons.count ? reasons[n] : [])
    }
  }
}

extension PlayLogEntry {
  /// The swipe the entry amounts to: its own, or its drag's under `rule`; nil for a
  /// hesitation.
  package func committed(rule: SwipeRule) throws -> SwipeDirection? {
    if let swipe { return swipe }
    guard let dx else { return nil }
    return try rule.decide(dx: dx, width: width).swipe
  }
}

extension PlayState {
  /// The line on standard error after the screen is left: how the session ended, and how many
  /// events went to `log`.
  package func summary(logged: Int, log: String?) -> String {
    var text: String
    if options.carousel {
      text = "browsed \(TextLayout.plural(cards.count, "card"))"
    } else {
      let session = deck
      switch session.status {
      case .picked(let index):
        text =
          "picked '\(cards[index].name)' at \(session.swiped.count) of \(session.original.count)"
      case .finishedSwiping:
        text = "finished swiping \(TextLayout.plural(session.original.count, "card"))"
      case .noCards: text = "no cards"
      case .abandoned, .inProgress:
        text =
          "stopped after \(TextLayout.plural(session.swiped.count, "swipe")) of"
          + " \(session.original.count)"
      }
    }
    if let log { text += "; \(TextLayout.plural(logged, "event")) appended to \(log)" }
    return text
  }
}
