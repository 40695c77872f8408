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

  /// Whether every card of every session carries a prefix propensity, and there is a card: what
  /// the slate estimators need. `LoggedSessions.check()` refuses a session that carries them on
  /// some cards only, so in a log it passed each session has them on every card or on none, and
  /// this is false when some session has none.
  package var hasPrefixPropensities: Bool {
    var any = false
    for s in sessions {
      for c in s.cards {
        if c.prefixPropensity == nil { return false }
        any = true
      }
    }
    return any
  }
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

  /// Counts `n` more events without their locations (found after the ones kept).
  mutating func noteUnlisted(_ n: Int) { count += n }

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
/// card it logs (catalog index, position, right swipe = reward 1, propensity, and the prefix
/// propensity when logged), grouped into sessions (user, deck day). Events before `start` are
/// accepted and left out (they are the training period).
///
/// Events whose item is not in the catalog are refused (`.unknownItem`), in or out of the
/// window, as the other sinks do. An event in the window without a `propensity` or without a
/// `position` cannot be evaluated: it is left out, counted, and its location kept, so that
/// `check()` can fail with an error that says where; so is an event whose propensity is below
/// `OffPolicy.minimumPropensity`. Zero, negative, non-finite and above-1 propensities never get
/// here: the reader refuses them (`(0, 1]`) with their location.
///
/// Prefix propensities are optional: a log without any is valid (the slate estimators are then
/// not computed). A log that carries them must carry them coherently, since the slate
/// estimators divide by them: `check()` refuses a prefix propensity above the card's own
/// propensity, prefix propensities that grow along a session's positions, a session that
/// carries them on some cards only, and a session that carries them whose positions are not
/// 1, 2, ..., L once each (each naming the file:line of the first such event).
///
/// The reader does not tell a sink which file an event came from: whoever drives it reads one
/// file per `EventReader.read` call and sets `file` before each (the name used in locations).
///
/// Memory: 32 bytes per evaluated card while reading (`PendingCard`: the card, its session, its
/// prefix propensity and the line of its event, kept for the locations of `check()`), plus the
/// distinct users, sessions and files; `check()` of a log with prefix propensities adds 4
/// bytes per card and 16 per session while it runs. The log (`log()`) is 40 bytes per card
/// (`LoggedCard`).
package struct LoggedSessions: EventSink, Sendable {
  package let catalog: Catalog
  /// The first day of the evaluation period.
  package let start: DeckDate
  /// The file being read, for the locations of events with missing fields and of the cards
  /// `check()` refuses.
  package var file: String {
    didSet {
      if let last = files.last, last.firstCard == cards.count {
        files[files.count - 1].name = file
      } else {
        files.append((file, cards.count))
      }
    }
  }

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
  /// Cards with a prefix propensity.
  private var prefixCards = 0
  /// The files read, each with the index in `cards` of its first card: cards come in the order
  /// read, so a card's file is the last one that starts at or before it.
  private var files: [(name: String, firstCard: Int)]
  /// The lines of the cards whose line does not fit `PendingCard.line`, by card index.
  private var longLines: [Int: Int] = [:]

  /// One evaluated card as read, in 32 bytes (`MemoryLayout<PendingCard>.stride`).
  struct PendingCard {
    var session: Int32
    var item: Int32
    /// 1-based, at most `EventReader.maxPosition`.
    var position: UInt16
    var liked: Bool
    /// The line of its event; `UInt32.max` when the line is in `longLines`.
    var line: UInt32
    var propensity: Double
    /// 0 when not logged (a logged one is above 0).
    var prefixPropensity: Double
  }

  package init(catalog: Catalog, start: DeckDate, file: String = "") {
    self.catalog = catalog
    self.start = start
    self.file = file
    files = [(file, 0)]
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
    precondition(e.position <= Int32(UInt16.max), "positions are at most EventReader.maxPosition")
    let session = sessionSlot(e.user, day)
    var line = UInt32.max
    if e.line >= 0 && e.line < Int(UInt32.max) {
      line = UInt32(e.line)
    } else {
      longLines[cards.count] = e.line
    }
    if e.prefixPropensity != nil { prefixCards += 1 }
    cards.append(
      PendingCard(
        session: session, item: item, position: UInt16(e.position), liked: e.swipe == .right,
        line: line, propensity: propensity, prefixPropensity: e.prefixPropensity ?? 0))
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
  /// Then, when some card carries a prefix propensity, the same for the first card (in the
  /// order read) of each of `checkPrefixes()`'s rules that a card breaks.
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
      let floor = Text.fixed(OffPolicy.minimumPropensity, decimals: 6)
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
    if prefixCards > 0 { try checkPrefixes() }
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
    for c in cards {
      sessions[target[Int(c.session)]].cards.append(
        LoggedCard(
          item: c.item, position: Int32(c.position), liked: c.liked, propensity: c.propensity,
          prefixPropensity: c.prefixPropensity > 0 ? c.prefixPropensity : nil))
    }
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

// MARK: - Prefix propensities

extension LoggedSessions {
  /// How far (relative) a prefix propensity may exceed the card's propensity or the prefix
  /// propensity before it: the rounding of a product of probabilities, not more.
  package static let prefixTolerance = 1e-9

  /// The first few (in the order read) of the cards that break a rule, each with what its
  /// message says, and how many there are.
  private struct Offenders<Detail> {
    var count = 0
    /// Ascending by card index, at most `EventLocations.limit`.
    var first: [(card: Int, detail: Detail)] = []

    mutating func note(_ card: Int, _ detail: Detail) {
      count += 1
      if first.count == EventLocations.limit {
        guard card < first[first.count - 1].card else { return }
        first.removeLast()
      }
      let at = first.firstIndex { $0.card > card } ?? first.count
      first.insert((card, detail), at: at)
    }
  }

  /// Where a session's positions stop being 1, 2, ..., L.
  private enum PositionBreak {
    /// The first card's position is not 1.
    case start
    /// The card comes after a gap (the position before it is given).
    case gap(after: UInt16)
    /// A second card at the position of `earlier` (a card index).
    case twice(earlier: Int)
  }

  /// The location of card `i`'s event.
  private func location(ofCard i: Int, field: String? = nil) -> SourceLocation {
    // The last file that starts at or before the card.
    var lo = 0
    var hi = files.count - 1
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if files[mid].firstCard <= i { lo = mid } else { hi = mid - 1 }
    }
    let line = cards[i].line == UInt32.max ? longLines[i] ?? Int(UInt32.max) : Int(cards[i].line)
    return SourceLocation(file: files[lo].name, line: line, field: field)
  }

  /// "here, :15, :20 and 40 more" for the offenders.
  private func listed<Detail>(_ offenders: Offenders<Detail>) -> String {
    var locations = EventLocations()
    for o in offenders.first {
      let l = location(ofCard: o.card)
      locations.note(file: l.file, line: l.line)
    }
    locations.noteUnlisted(offenders.count - offenders.first.count)
    return locations.listed()
  }

  /// "diner 'u1' on 2026-11-22".
  private func describe(session s: Int) -> String {
    "diner '\(users.string(at: sessionUser[s]))' on \(DeckDate(daysSinceEpoch: sessionDay[s]))"
  }

  @inline(__always)
  private static func exceeds(_ a: Double, _ b: Double) -> Bool {
    a - b > prefixTolerance * b
  }

  /// The rules of a log's prefix propensities, which the slate estimators divide by (the prefix
  /// propensity of the card at position k is the logging policy's probability of the session's
  /// cards at positions 1 to k, in that order), checked in this order:
  /// 1. a session carries them on every card or on none (`prefix_propensity`: missing);
  /// 2. a session that carries them has one card at each position 1, 2, ..., L (`position`): a
  ///    prefix with a gap or two cards at one place has no probability;
  /// 3. a prefix propensity is at most the card's propensity, P(this card at position k), since
  ///    the prefix includes that event;
  /// 4. along a session's positions, prefix propensities do not grow: a longer prefix is no
  ///    likelier than a shorter one.
  /// 3 and 4 allow `prefixTolerance` of relative excess. The first rule broken throws a
  /// `.malformed` error at its first card in the order read, listing a few more and counting
  /// the rest (events, or sessions for rule 2).
  ///
  /// Memory while it runs: 4 bytes per card and 16 per session.
  func checkPrefixes() throws(DeckIOError) {
    precondition(cards.count < Int(Int32.max), "card indices fit in 32 bits")
    let bounds: [Int]
    var order: [Int32]
    (bounds, order) = cardsBySession()
    var found = PrefixOffenders()
    for s in 0..<sessionUser.count {
      checkPrefixes(session: s, bounds[s]..<bounds[s + 1], order: &order, into: &found)
    }
    try throwFirst(found)
  }

  /// The cards that break each rule of `checkPrefixes()`.
  private struct PrefixOffenders {
    var partial = Offenders<Int>()  // the session
    var positions = Offenders<(session: Int, position: UInt16, kind: PositionBreak)>()
    var aboveOwn = Offenders<Void>()
    var growing = Offenders<(session: Int, before: Int)>()
  }

  /// The cards of each session, in the order read: session s's card indices are
  /// `order[bounds[s]..<bounds[s + 1]]`.
  private func cardsBySession() -> (bounds: [Int], order: [Int32]) {
    let sessionCount = sessionUser.count
    var bounds = [Int](repeating: 0, count: sessionCount + 1)
    for c in cards { bounds[Int(c.session) + 1] += 1 }
    for s in 0..<sessionCount { bounds[s + 1] += bounds[s] }
    var order = [Int32](repeating: 0, count: cards.count)
    var next = bounds
    for i in cards.indices {
      let s = Int(cards[i].session)
      order[next[s]] = Int32(i)
      next[s] += 1
    }
    return (bounds, order)
  }

  /// Notes the cards of session `s` (`order[range]`, sorted here by position) that break the
  /// rules of `checkPrefixes()`.
  private func checkPrefixes(
    session s: Int, _ range: Range<Int>, order: inout [Int32], into found: inout PrefixOffenders
  ) {
    var carrying = 0
    for k in range where cards[Int(order[k])].prefixPropensity > 0 { carrying += 1 }
    guard carrying > 0 else { return }
    if carrying < range.count {
      for k in range where cards[Int(order[k])].prefixPropensity == 0 {
        found.partial.note(Int(order[k]), s)
      }
    }
    order[range].sort { a, b in
      let pa = cards[Int(a)].position
      let pb = cards[Int(b)].position
      return pa != pb ? pa < pb : a < b
    }
    var expected: UInt16 = 1
    var broken = false
    var before: Int? = nil
    for k in range {
      let i = Int(order[k])
      let card = cards[i]
      if !broken && card.position != expected {
        broken = true
        let kind: PositionBreak =
          card.position < expected
          ? .twice(earlier: Int(order[k - 1]))
          : expected == 1 ? .start : .gap(after: expected - 1)
        found.positions.note(i, (s, card.position, kind))
      }
      expected = card.position &+ 1
      guard card.prefixPropensity > 0 else { continue }
      if Self.exceeds(card.prefixPropensity, card.propensity) { found.aboveOwn.note(i, ()) }
      if let b = before, Self.exceeds(card.prefixPropensity, cards[b].prefixPropensity) {
        found.growing.note(i, (s, b))
      }
      before = i
    }
  }

  /// Throws the error of the first rule of `checkPrefixes()` that `found` breaks.
  private func throwFirst(_ found: PrefixOffenders) throws(DeckIOError) {
    let (partial, positions, aboveOwn, growing) = (
      found.partial, found.positions, found.aboveOwn, found.growing
    )
    let meaning =
      "a prefix propensity is the logging policy's probability of the session's cards from "
      + "position 1 to this one, in their order"
    if let head = partial.first.first {
      let what =
        partial.count == 1
        ? "missing, though other cards of its session (\(describe(session: head.detail))) carry one"
        : "missing on \(partial.count) events of sessions whose other cards carry one (the first: "
          + "\(describe(session: head.detail))): \(listed(partial))"
      throw .malformed(
        location(ofCard: head.card, field: "prefix_propensity"),
        message: what + "; " + meaning
          + ", so the slate estimators need it on every card of a session or on none: log it "
          + "with every card the ranking showed, or with none")
    }
    if let head = positions.first.first {
      let (s, position, kind) = head.detail
      let session = "the session of \(describe(session: s)), which carries prefix propensities"
      var what: String
      switch kind {
      case .start: what = "\(position) is the first position of \(session)"
      case .gap(let after): what = "\(position) follows position \(after) in \(session)"
      case .twice(let earlier):
        let other = location(ofCard: earlier)
        let at = other.file == location(ofCard: head.card).file ? ":\(other.line)" : "\(other)"
        what = "a second card at position \(position) (the first is at \(at)) in \(session)"
      }
      if positions.count > 1 {
        what += " (in \(positions.count) sessions from \(start) on: \(listed(positions)))"
      }
      throw .malformed(
        location(ofCard: head.card, field: "position"),
        message: what + "; " + meaning
          + ", which needs one card at each position 1, 2, 3, ...: log every card shown, once, "
          + "or leave out prefix_propensity")
    }
    if let head = aboveOwn.first.first {
      let card = cards[head.card]
      let count =
        aboveOwn.count == 1
        ? "" : " (on \(aboveOwn.count) events from \(start) on: \(listed(aboveOwn)))"
      throw .malformed(
        location(ofCard: head.card, field: "prefix_propensity"),
        message: "'\(card.prefixPropensity)' is above the card's propensity '\(card.propensity)'"
          + count + "; " + meaning + ", which cannot exceed the probability of this card at its "
          + "position: log the probability of the whole prefix (the product of the ranking's "
          + "choices up to this card), not of the card alone")
    }
    if let head = growing.first.first {
      let card = cards[head.card]
      let earlier = cards[head.detail.before]
      let count =
        growing.count == 1
        ? "" : " (on \(growing.count) events from \(start) on: \(listed(growing)))"
      throw .malformed(
        location(ofCard: head.card, field: "prefix_propensity"),
        message: "'\(card.prefixPropensity)' at position \(card.position) is above "
          + "'\(earlier.prefixPropensity)' at position \(earlier.position) in the session of "
          + "\(describe(session: head.detail.session))" + count + "; " + meaning
          + ", so it cannot grow along the positions: log the running product of the ranking's "
          + "choices up to each card, not each choice alone")
    }
  }
}
