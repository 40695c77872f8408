import DeckCore

/// One decoded swipe, handed to an `EventSink`: the zero-copy form of the in-repo fast sinks.
///
/// Why a type of its own: the event readers' loops hand every swipe of a log to a sink without
/// allocating; a `SwipeEvent` would cost two strings per swipe on the hottest path (history and
/// snapshot ingest, stats). Conversions to and from it are in `EventConversions.swift`.
///
/// `user` and `item` point into the reader's buffers (already unescaped and valid UTF-8) and are
/// valid only during the `EventSink.event(_:)` call: copy what you keep. Sinks outside the
/// package receive `SwipeEvent` values instead (`SwipeEventSink`).
package struct RawEvent {
  package var user: UnsafeBufferPointer<UInt8>
  package var item: UnsafeBufferPointer<UInt8>
  package var swipe: SwipeDirection
  /// Wall-clock seconds since 1970-01-01T00:00 in the configured zone (as `SwipeEvent.at`).
  package var at: Int64
  /// 1-based card position, or 0 when not logged.
  package var position: Int32
  package var deck: DeckDate?
  package var propensity: Double?
  /// The probability the ranking had of the deck's cards from position 1 to this one, in order,
  /// in (0, 1], when logged (`prefix_propensity`).
  package var prefixPropensity: Double?
  /// The 1-based line of the event's record in its file (for a CSV record that spans several
  /// lines, the line it starts on); 0 when the event did not come from a file.
  package var line: Int

  package init(
    user: UnsafeBufferPointer<UInt8>, item: UnsafeBufferPointer<UInt8>, swipe: SwipeDirection,
    at: Int64, position: Int32 = 0, deck: DeckDate? = nil, propensity: Double? = nil,
    prefixPropensity: Double? = nil, line: Int = 0
  ) {
    self.user = user
    self.item = item
    self.swipe = swipe
    self.at = at
    self.position = position
    self.deck = deck
    self.propensity = propensity
    self.prefixPropensity = prefixPropensity
    self.line = line
  }

  /// The local day of the swipe (days since 1970-01-01).
  @inline(__always)
  package var day: Int32 {
    Int32(truncatingIfNeeded: localDay(seconds: at))
  }

  package var userString: String { String(decoding: user, as: UTF8.self) }
  package var itemString: String { String(decoding: item, as: UTF8.self) }
}

/// What a sink did with an event.
package enum EventDisposition: Sendable, Equatable {
  case accepted
  /// The item is not in the catalog: counted in `EventFileStats.unknownItemEvents`.
  case unknownItem
}

/// Receives the events of a run as `RawEvent`s, one at a time, in file order, without a copy:
/// the protocol of the in-repo fast sinks (history and snapshot ingest, stats, logged
/// sessions). Every other sink is a `SwipeEventSink`.
package protocol EventSink {
  mutating func event(_ e: RawEvent) -> EventDisposition
  /// Called at the end of every `EventReader` read that succeeds (`read`, `readOnce`), once per
  /// call, after its last event; not after an error. A sink fed by several reads (one per log,
  /// as the command line does) sees it once per read and must take events after it: a sink that
  /// queues work finishes the work queued so far here.
  mutating func finish()
}

extension EventSink {
  package mutating func finish() {}
}

/// Receives the events of a run as `SwipeEvent` values (ids as strings), one at a time, in file
/// order: for sinks that keep or compare ids as text, at the cost of two strings per event.
package protocol SwipeEventSink {
  mutating func event(_ e: SwipeEvent) -> EventDisposition
  /// Called as `EventSink.finish()` is: at the end of every read that succeeds, once per call.
  mutating func finish()
}

extension SwipeEventSink {
  package mutating func finish() {}
}

/// A `SwipeEventSink` seen as an `EventSink`: each event copied out as a `SwipeEvent`.
package struct SwipeEventAdapter<Base: SwipeEventSink>: EventSink {
  package var base: Base

  package init(_ base: Base) { self.base = base }

  package mutating func event(_ e: RawEvent) -> EventDisposition { base.event(e.swipeEvent) }

  package mutating func finish() { base.finish() }
}
