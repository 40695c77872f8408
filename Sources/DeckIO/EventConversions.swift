import DeckCore

// Every conversion between menudeck's three event types, one function per direction:
//
// - `SwipeEvent` (DeckCore): a decided swipe, the model's one event (history, stats, play).
// - `RawEvent` (DeckIO): a decided swipe as the event readers hand it to their sinks, its ids
//   pointing into the reader's buffers (no allocation on the readers' hot path).
// - `LogEvent` (DeckIO): a line of a log as written, which may be a raw drag or a hesitation
//   and carries the writer's UTC offset.
//
// No other file builds one of these types from another.

extension RawEvent {
  /// The event as a `SwipeEvent` (allocates two strings; a position of 0, not logged, is nil).
  package var swipeEvent: SwipeEvent {
    SwipeEvent(
      user: userString, item: itemString, swipe: swipe, at: at,
      position: position > 0 ? Int(position) : nil, deck: deck, propensity: propensity,
      prefixPropensity: prefixPropensity)
  }
}

extension SwipeEvent {
  /// Calls `body` with the swipe as a `RawEvent` whose ids point into copies of `user` and
  /// `item`, valid only during the call (a position not logged is 0); returns what `body` does.
  package func withRawEvent<R>(line: Int = 0, _ body: (RawEvent) throws -> R) rethrows -> R {
    var user = self.user
    var item = self.item
    return try user.withUTF8 { u in
      try item.withUTF8 { i in
        try body(
          RawEvent(
            user: u, item: i, swipe: swipe, at: at, position: Int32(position ?? 0), deck: deck,
            propensity: propensity, prefixPropensity: prefixPropensity, line: line))
      }
    }
  }
}

extension LogEvent {
  /// A decided swipe as a log line (no drag; the writer's zone gives the offset).
  package init(_ event: SwipeEvent) {
    self.init(
      user: event.user, item: event.item, swipe: event.swipe, at: event.at,
      position: event.position, deck: event.deck, propensity: event.propensity,
      prefixPropensity: event.prefixPropensity)
  }

  /// A swipe as the readers decoded it, as a log line (copies the ids; a position of 0, not
  /// logged, is nil).
  package init(_ raw: RawEvent) {
    self.init(
      user: raw.userString, item: raw.itemString, swipe: raw.swipe, at: raw.at,
      position: raw.position > 0 ? Int(raw.position) : nil, deck: raw.deck,
      propensity: raw.propensity, prefixPropensity: raw.prefixPropensity)
  }

  /// The swipe the line amounts to, as the reader decides it: its own swipe, or its drag's under
  /// `rule`; nil for a hesitation (a drag that commits to nothing). The UTC offset is dropped:
  /// `at` is already wall-clock time in the log's zone.
  package func swipeEvent(rule: SwipeRule) throws(DeckCoreError) -> SwipeEvent? {
    var direction = swipe
    if direction == nil, let drag {
      direction = try rule.decide(dx: drag.dx, width: drag.width).swipe
    }
    guard let direction else { return nil }
    return SwipeEvent(
      user: user, item: item, swipe: direction, at: at, position: position, deck: deck,
      propensity: propensity, prefixPropensity: prefixPropensity)
  }
}
