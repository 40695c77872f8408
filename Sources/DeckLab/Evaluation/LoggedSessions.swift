import DeckBase
import DeckCore
import DeckIO

/// One logged card of an off-policy evaluation log: what the logging policy showed where, how
/// the diner swiped it, and the probability the logging policy had of showing it there.
package struct LoggedCard: Sendable, Equatable {
  /// Catalog index.
  package var item: Int32
  /// 1-based position in the logged deck.
  package var position: Int32
  /// Swiped right.
  package var liked: Bool
  /// The logging policy's probability of putting `item` at `position` in this session: the
  /// marginal P(item at position), in (0, 1].
  package var propensity: Double
  /// The logging policy's probability of the session's logged cards from position 1 to this
  /// one, in this order (Open Bandit Pipeline's `pscore_cascade`), in (0, 1]; nil when the log
  /// does not carry it (the slate estimators need it).
  package var prefixPropensity: Double?

  package init(
    item: Int32, position: Int32, liked: Bool, propensity: Double,
    prefixPropensity: Double? = nil
  ) {
    precondition(item >= 0, "a catalog index is 0 or more")
    precondition(position >= 1, "positions are 1-based")
    precondition(propensity > 0 && propensity <= 1, "a propensity is in (0, 1]")
    precondition(
      prefixPropensity.map { $0 > 0 && $0 <= 1 } ?? true, "a prefix propensity is in (0, 1]")
    self.item = item
    self.position = position
    self.liked = liked
    self.propensity = propensity
    self.prefixPropensity = prefixPropensity
  }

  /// 1 for a right swipe, 0 for a left one.
  @inline(__always)
  package var reward: Double { liked ? 1 : 0 }
}

/// The logged cards of one diner on one deck day, by position (cards at the same position keep
/// their order in the log).
package struct LoggedSession: Sendable, Equatable {
  /// Index into `OffPolicyLog.diners`.
  package var diner: Int
  package var day: DeckDate
  package var cards: [LoggedCard]

  package init(diner: Int, day: DeckDate, cards: [LoggedCard]) {
    self.diner = diner
    self.day = day
    self.cards = cards
  }
}

/// The evaluation log of an off-policy evaluation: its diners and their sessions.
///
/// `diners` are sorted ascending by UTF-8 bytes (the unit order of `UnitTable`); `sessions` are
/// sorted by diner, then day. A target strategy's rankings are indexed like `sessions`.
package struct OffPolicyLog: Sendable, Equatable {
  package var diners: [String]
  package var sessions: [LoggedSession]
  /// Items in the catalog the card indices refer to.
  package var itemCount: Int

  package init(diners: [String], sessions: [LoggedSession], itemCount: Int) {
    precondition(
      sessions.allSatisfy { s in
        s.diner >= 0 && s.diner < diners.count && s.cards.allSatisfy { $0.item < itemCount }
      }, "sessions refer to a diner or an item outside the log")
    self.diners = diners
    self.sessions = sessions
    self.itemCount = itemCount
  }

  /// The largest logged position (0 for an empty log).
  package var maxPosition: Int {
    sessions.reduce(0) { m, s in s.cards.reduce(m) { max($0, Int($1.position)) } }
  }

  /// Logged cards over all sessions.
  package var cardCount: Int { sessions.reduce(0) { $0 + $1.cards.count } }
}

/// How many events lacked a field, and where the first few of them are.
package struct EventLocations: Sendable, Equatable {
  package private(set) var count = 0
  /// The first `EventLocations.limit` of them, in the order read.
  package private(set) var first: [SourceLocation] = []

  /// Locations kept (an error message names them).
  package static let limit = 3

  package init() {}

  mutating func note(file: String, line: Int) {
    count += 1
    if first.count < EventLocations.limit { first.append(SourceLocation(file: file, line: line)) }
  }

  /// "here, :15, :20 and 40 more" (other files by name), relative to the first location.
  func listed() -> String {
    guard let head = first.first else { return "" }
    var parts = ["here"]
    for location in first.dropFirst() {
      parts.append(location.file == head.file ? ":\(location.line)" : "\(location)")
    }
    if count > first.count { parts.append("\(count - first.count) more") }
    if parts.count == 1 { return parts[0] }
    return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
  }
}

/// An `EventSink` that collects the evaluation log of an off-policy evaluation: for every event
/// whose deck day (the event's `deck`, or else the local day of `at`) is on or after `start`, the
/// card it logs (catalog index, position, right swipe = reward 1, propensity), grouped into
/// sessions (user, deck day). Events before `start` are accepted and left out (they are the
/// training period).
///
/// Events whose item is not in the catalog are refused (`.unknownItem`), in or out of the
/// window, as the other sinks do. An event in the window without a `propensity` or without a
/// `position` cannot be evaluated: it is left out, counted, and its location kept, so that
/// `check()` can fail with an error that says where; so is an event whose propensity is below
/// `OffPolicy.minimumPropensity`. Zero, negative, non-finite and above-1 propensities never get
/// here: the reader refuses them (`(0, 1]`) with their location.
///
/// The reader does not tell a sink which file an event came from: whoever drives it reads one
/// file per `EventReader.read` call and sets `file` before each (the name used in locations).
///
/// Memory: about 24 bytes per evaluated card, plus the distinct users and sessions.
package struct LoggedSessions: EventSink, Sendable {
  package let catalog: Catalog
  /// The first day of the evaluation period.
  package let start: DeckDate
  /// The file being read, for the locations of events with missing fields.
  package var file: String

  /// Events in the window without a propensity.
  package private(set) var missingPropensity = EventLocations()
  /// Events in the window without a position.
  package private(set) var missingPosition = EventLocations()
  /// Events in the window whose propensity is below `OffPolicy.minimumPropensity`, and the
  /// propensity of the first of them.
  package private(set) var lowPropensity = EventLocations()
  package private(set) var firstLowPropensity: Double?
  /// Events before `start` (left out).
  package private(set) var eventsBefore = 0

  private var items: ByteTable
  private var users = ByteTable(capacity: 1024)
  private var sessionIndex: [UInt64: Int32] = [:]
  /// Per session: its user (`users` index) and deck day.
  private var sessionUser: [Int32] = []
  private var sessionDay: [Int32] = []
  private var lastSession: Int32 = -1
  private var cards: [PendingCard] = []

  private struct PendingCard {
    var session: Int32
    var card: LoggedCard
  }

  package init(catalog: Catalog, start: DeckDate, file: String = "") {
    self.catalog = catalog
    self.start = start
    self.file = file
    items = ByteTable(capacity: catalog.count)
    for item in catalog.items { _ = items.insert(item.id) }
  }

  /// Evaluated cards so far.
  package var cardCount: Int { cards.count }

  package mutating func event(_ e: RawEvent) -> EventDisposition {
    guard let item = items.find(e.item) else { return .unknownItem }
    let day = e.deck?.daysSinceEpoch ?? e.day
    guard day >= start.daysSinceEpoch else {
      eventsBefore += 1
      return .accepted
    }
    guard let propensity = e.propensity, e.position > 0 else {
      if e.propensity == nil { missingPropensity.note(file: file, line: e.line) }
      if e.position <= 0 { missingPosition.note(file: file, line: e.line) }
      return .accepted
    }
    guard propensity >= OffPolicy.minimumPropensity else {
      if firstLowPropensity == nil { firstLowPropensity = propensity }
      lowPropensity.note(file: file, line: e.line)
      return .accepted
    }
    let session = sessionSlot(e.user, day)
    cards.append(
      PendingCard(
        session: session,
        card: LoggedCard(
          item: item, position: e.position, liked: e.swipe == .right, propensity: propensity)))
    return .accepted
  }

  /// The session of (user, day); logs come in sessions, so usually the previous event's.
  @inline(__always)
  private mutating func sessionSlot(_ user: UnsafeBufferPointer<UInt8>, _ day: Int32) -> Int32 {
    if lastSession >= 0 && sessionDay[Int(lastSession)] == day
      && users.keyEquals(sessionUser[Int(lastSession)], user)
    {
      return lastSession
    }
    let u = users.insert(user).index
    let key = UInt64(UInt32(bitPattern: u)) << 32 | UInt64(UInt32(bitPattern: day))
    if let s = sessionIndex[key] {
      lastSession = s
      return s
    }
    let s = Int32(sessionUser.count)
    sessionIndex[key] = s
    sessionUser.append(u)
    sessionDay.append(day)
    lastSession = s
    return s
  }

  /// Throws when an event of the evaluation period has no propensity (checked first), a
  /// propensity below `OffPolicy.minimumPropensity`, or no position: a `.malformed` error at
  /// the first such event that lists a few more and counts the rest, e.g. `events.jsonl:12:
  /// propensity: missing on 43 events from 2026-03-01 on: here, :15, :20 and 40 more; ...`.
  package func check() throws(DeckIOError) {
    if let head = missingPropensity.first.first {
      throw .malformed(
        SourceLocation(file: head.file, line: head.line, field: "propensity"),
        message: missing(missingPropensity)
          + "; off-policy evaluation needs the logging policy's propensity (its probability of "
          + "showing the item at that position) on every evaluated event; the plackett-luce "
          + "strategy logs it")
    }
    if let head = lowPropensity.first.first, let value = firstLowPropensity {
      let floor = TextLayout.fixed(OffPolicy.minimumPropensity, decimals: 6)
      let count =
        lowPropensity.count == 1
        ? "" : " (on \(lowPropensity.count) events from \(start) on: \(lowPropensity.listed()))"
      throw .malformed(
        SourceLocation(file: head.file, line: head.line, field: "propensity"),
        message: "'\(value)' is below \(floor), the smallest propensity off-policy estimates use"
          + count + ": a card's weight is 1 / propensity, and one such card would outweigh a "
          + "million others; log propensities of at least \(floor), or give a --split after "
          + "these events")
    }
    if let head = missingPosition.first.first {
      throw .malformed(
        SourceLocation(file: head.file, line: head.line, field: "position"),
        message: missing(missingPosition)
          + "; off-policy evaluation needs the 1-based card position of every evaluated event; "
          + "log it with each swipe")
    }
  }

  private func missing(_ events: EventLocations) -> String {
    if events.count == 1 { return "missing" }
    return "missing on \(events.count) events from \(start) on: \(events.listed())"
  }

  /// The evaluation log: diners sorted by UTF-8 bytes, sessions by diner and day, cards by
  /// position (stable). A diner is its id's bytes (`IDKey`), as everywhere: a precomposed and a
  /// decomposed accent are two diners.
  package func log() -> OffPolicyLog {
    // `users` holds each id's bytes once.
    let names = (0..<users.count).map { users.string(at: Int32($0)) }
    let dinerOfUser = Array(names.indices)
    let order = names.indices.sorted { names[$0].utf8.lexicographicallyPrecedes(names[$1].utf8) }
    var rank = [Int](repeating: 0, count: names.count)
    for (r, d) in order.enumerated() { rank[d] = r }
    let diners = order.map { names[$0] }

    // Sessions by (diner, day).
    var merged: [UInt64: Int] = [:]
    var sessions: [LoggedSession] = []
    var target = [Int](repeating: 0, count: sessionUser.count)
    for s in sessionUser.indices {
      let diner = rank[dinerOfUser[Int(sessionUser[s])]]
      let key = UInt64(diner) << 32 | UInt64(UInt32(bitPattern: sessionDay[s]))
      if let t = merged[key] {
        target[s] = t
      } else {
        merged[key] = sessions.count
        target[s] = sessions.count
        sessions.append(
          LoggedSession(diner: diner, day: DeckDate(daysSinceEpoch: sessionDay[s]), cards: []))
      }
    }
    for c in cards { sessions[target[Int(c.session)]].cards.append(c.card) }
    for s in sessions.indices {
      // Stable by position: ties keep the order of the log.
      let indexed = sessions[s].cards.enumerated().sorted {
        ($0.element.position, $0.offset) < ($1.element.position, $1.offset)
      }
      sessions[s].cards = indexed.map(\.element)
    }
    sessions.sort { ($0.diner, $0.day.daysSinceEpoch) < ($1.diner, $1.day.daysSinceEpoch) }
    return OffPolicyLog(diners: diners, sessions: sessions, itemCount: catalog.count)
  }
}
