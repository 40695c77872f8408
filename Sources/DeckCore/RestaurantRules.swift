/// One of the restaurant's own rules (the config's `rules` section): pin a dish at a position,
/// boost or bury dishes by a factor, or hide them; for everyone or a list of diners, within an
/// optional window of dates and weekdays. `DeckRules.restaurantRules` holds them in config order;
/// a rule is known by its index there (0-based; "rule 1" in messages) and its optional name.
///
/// The order in which a deck is built, with the restaurant's rules in it:
/// 1. Hold-backs, the first reason that applies counting: exclusion and availability; the
///    diner's diets, allergens and disliked categories; recent picks and cooldown (the `pinned`
///    items and the dishes of `pin` rules in force exempt); then the restaurant's `hide` rules
///    in force (`Shortfall.hiddenByRule`; a hide on a dish already held back does nothing and
///    is not recorded; a hidden `pinned` item is a skipped pin).
/// 2. The strategy scores the candidates that are left.
/// 3. `boost` and `bury` rules in force change the scores, in rule order, each rule once per dish
///    (`RestaurantRule.boosted(_:by:)`, `buried(_:by:)`). The deck is ordered by these scores
///    (its cards carry them): not recently shown first, then score, then catalog order.
/// 4. The `pinned` items (always first) take the first places, in pin order.
/// 5. `pin` rules in force, in position order, for dishes that are candidates (and not pinned
///    first): each takes a place of the deck, counting against the category cap as a pinned
///    item does without being capped itself. A pin that would make the deck longer than its size
///    is dropped (the pins at lower positions win).
/// 6. The other places are filled in key order under the category cap and arranged so that no
///    two neighbours share a category, as without rules (the pins at positions are left out of
///    that arrangement, so a pin may sit next to a card of its category).
/// 7. Each `pin` dish goes at its position when the deck reaches it (has that many cards) and no
///    `pinned` item holds it. Those whose position a `pinned` item holds go at the first places
///    after the pinned items; those beyond the deck's length at its last places; both in position
///    order. The other cards fill the places left, in order.
///
/// A rule outside its window or not for this diner does nothing. Every rule that changed
/// something is recorded on the deck (`Deck.ruleApplications`).
public struct RestaurantRule: Sendable, Equatable {
  /// What the rule does.
  public enum Action: Sendable, Equatable {
    /// Put the dish at this 1-based place of the deck (1...`DeckRules.maxSize`); the target must
    /// be one dish.
    case pin(position: Int)
    /// Raise the score by a finite factor > 1 (`RestaurantRule.boosted(_:by:)`).
    case boost(factor: Double)
    /// Lower the score by a finite factor > 1 (`RestaurantRule.buried(_:by:)`).
    case bury(factor: Double)
    /// Keep the dishes off the deck (held back after every `HoldBackReason`, counted in
    /// `Shortfall.hiddenByRule`).
    case hide

    /// The config key that gives the action: "pin", "boost", "bury" or "hide".
    public var key: String {
      switch self {
      case .pin: return "pin"
      case .boost: return "boost"
      case .bury: return "bury"
      case .hide: return "hide"
      }
    }
  }

  /// The dishes a rule matches: one dish by id, every dish of a category, or every dish with a
  /// tag. Compared by UTF-8 bytes (`IDKey`), as the catalog interns them.
  public enum Target: Sendable, Equatable, CustomStringConvertible {
    case dish(String)
    case category(String)
    case tag(String)

    /// The config field that names the target: "dish", "category" or "tag".
    public var field: String {
      switch self {
      case .dish: return "dish"
      case .category: return "category"
      case .tag: return "tag"
      }
    }

    /// The id, category or tag, as given.
    public var value: String {
      switch self {
      case .dish(let v), .category(let v), .tag(let v): return v
      }
    }

    public var description: String { "\(field) '\(value)'" }

    public static func == (a: Target, b: Target) -> Bool {
      a.field == b.field && IDKey.same(a.value, b.value)
    }
  }

  public var action: Action
  public var target: Target
  /// The diners (ids, by bytes) the rule is for; nil for everyone.
  public var diners: [String]?
  /// First deck date the rule is in force (inclusive), if limited.
  public var validFrom: DeckDate?
  /// Last deck date the rule is in force (inclusive), if limited.
  public var validUntil: DeckDate?
  /// Weekdays of the deck date the rule is in force on; nil for every day.
  public var weekdays: Set<Weekday>?
  /// A name for reports, if the config gives one.
  public var name: String?

  public init(
    _ action: Action, _ target: Target, diners: [String]? = nil, validFrom: DeckDate? = nil,
    validUntil: DeckDate? = nil, weekdays: Set<Weekday>? = nil, name: String? = nil
  ) {
    self.action = action
    self.target = target
    self.diners = diners
    self.validFrom = validFrom
    self.validUntil = validUntil
    self.weekdays = weekdays
    self.name = name
  }

  /// How reports name the rule where its action is said beside it: "rule 2" or
  /// "rule 2 'fish week'"; `index` is its 0-based place in the config.
  public func shortLabel(index: Int) -> String {
    "rule \(index + 1)" + (name.map { " '\($0)'" } ?? "")
  }

  /// How reports name the rule with what it does: "rule 2 'fish week' (boost tag 'seafood' by
  /// 3)"; `index` is its 0-based place in the config.
  public func label(index: Int) -> String {
    let what: String
    switch action {
    case .pin(let p): what = "pin \(target) at \(p)"
    case .boost(let f): what = "boost \(target) by \(Self.factorText(f))"
    case .bury(let f): what = "bury \(target) by \(Self.factorText(f))"
    case .hide: what = "hide \(target)"
    }
    return shortLabel(index: index) + " (\(what))"
  }

  /// A factor as written: "3" for 3.0, "1.5".
  private static func factorText(_ f: Double) -> String {
    f == f.rounded() && abs(f) < 1e15 ? String(Int64(f)) : "\(f)"
  }

  /// The deck dates the rule is in force on (the caller gives the date in the config's time
  /// zone).
  public var window: Availability {
    Availability(weekdays: weekdays, from: validFrom, until: validUntil)
  }

  /// A score boosted by `factor` (> 1): `s * factor` for s >= 0, `s / factor` for s < 0. For
  /// any sign it never lowers a score, never reorders two scores (monotone: s < t gives
  /// boosted(s) <= boosted(t)), and keeps the sign. A score of 0 stays 0 (a boost cannot lift a
  /// dish the strategy scores 0 above another at 0: it is then not recorded); NaN stays NaN,
  /// last; a finite score stays finite (at most `Double.greatestFiniteMagnitude`, which two
  /// boosted scores may then share, ties going by catalog order).
  @inline(__always)
  public static func boosted(_ s: Double, by factor: Double) -> Double {
    finite(s >= 0 ? s * factor : s / factor, from: s)
  }

  /// A score buried by `factor` (> 1): `s / factor` for s >= 0, `s * factor` for s < 0; the
  /// inverse of `boosted(_:by:)` (up to rounding), with the same properties the other way.
  @inline(__always)
  public static func buried(_ s: Double, by factor: Double) -> Double {
    finite(s >= 0 ? s / factor : s * factor, from: s)
  }

  /// `x`, or the largest finite number of its sign when `x` overflowed from finite `s`.
  @inline(__always)
  private static func finite(_ x: Double, from s: Double) -> Double {
    x.isInfinite && s.isFinite ? (x > 0 ? .greatestFiniteMagnitude : -.greatestFiniteMagnitude) : x
  }

  /// Whether the rule alone is well formed (no catalog needed): a window that does not end
  /// before it starts, at least one weekday and one diner when they are listed, a position in
  /// 1...`DeckRules.maxSize` and a pin naming one dish, a finite factor > 1. `index` is the
  /// rule's place in `DeckRules.restaurantRules`.
  public func validate(index: Int) throws(DeckCoreError) {
    func fail(_ field: String, _ problem: RestaurantRuleProblem) -> DeckCoreError {
      .invalidRestaurantRule(rule: index, field: field, problem: problem)
    }
    if let from = validFrom, let until = validUntil, until < from {
      throw fail("valid_until", .windowEndsBeforeStart(from: from, until: until))
    }
    if let weekdays, weekdays.isEmpty { throw fail("weekdays", .noWeekdays) }
    if let diners, diners.isEmpty { throw fail("diners", .noDiners) }
    switch action {
    case .pin(let position):
      guard (1...DeckRules.maxSize).contains(position) else {
        throw fail("pin", .positionOutOfRange(position))
      }
      guard case .dish = target else { throw fail(target.field, .pinNeedsDish) }
    case .boost(let factor), .bury(let factor):
      guard factor.isFinite && factor > 1 else {
        throw fail(action.key, .factorOutOfRange(factor))
      }
    case .hide:
      break
    }
  }

  /// Whether two rules can be in force for one diner on one date: their diner lists meet (by
  /// bytes; nil is everyone) and some date lies in both windows on a weekday of both.
  public static func canMeet(_ a: RestaurantRule, _ b: RestaurantRule) -> Bool {
    if let x = a.diners, let y = b.diners {
      let ys = Set(y.map { IDKey($0) })
      guard x.contains(where: { ys.contains(IDKey($0)) }) else { return false }
    }
    let days: Set<Weekday> =
      switch (a.weekdays, b.weekdays) {
      case (nil, nil): Set(Weekday.allCases)
      case (let w?, nil), (nil, let w?): w
      case (let v?, let w?): v.intersection(w)
      }
    guard !days.isEmpty else { return false }
    let from = [a.validFrom, b.validFrom].compactMap { $0 }.max()
    let until = [a.validUntil, b.validUntil].compactMap { $0 }.min()
    guard let from, let until else { return true }  // an open end: every weekday comes round
    guard from <= until else { return false }
    if until.days(since: from) >= 6 { return true }
    var d = from
    while d <= until {
      if days.contains(d.weekday) { return true }
      d = d.adding(days: 1)
    }
    return false
  }
}

/// What is wrong with a restaurant rule (`DeckCoreError.invalidRestaurantRule`). The config
/// reader adds the file and line, and a did-you-mean for the unknown names.
public enum RestaurantRuleProblem: Sendable, Equatable, CustomStringConvertible {
  case unknownDish(String)
  case unknownCategory(String)
  case unknownTag(String)
  case windowEndsBeforeStart(from: DeckDate, until: DeckDate)
  /// An empty `weekdays` list (the rule could never be in force).
  case noWeekdays
  /// An empty `diners` list (the rule would be for nobody).
  case noDiners
  case positionOutOfRange(Int)
  case factorOutOfRange(Double)
  /// A pin naming a category or a tag: a pin places one dish.
  case pinNeedsDish
  /// Two pins at one position that can be in force for one diner on one date; `rule` is the
  /// other (earlier) rule's index.
  case positionTaken(position: Int, byRule: Int)
  /// Two pins of one dish that can be in force for one diner on one date.
  case dishPinnedTwice(dish: String, byRule: Int)
  /// A pin of a dish that `DeckRules.pinned` already puts first.
  case alreadyPinnedFirst(dish: String)

  public var description: String {
    switch self {
    case .unknownDish(let v): return "unknown dish '\(v)'"
    case .unknownCategory(let v): return "unknown category '\(v)'"
    case .unknownTag(let v): return "unknown tag '\(v)'"
    case .windowEndsBeforeStart(let from, let until):
      return "the window ends (\(until)) before it starts (\(from))"
    case .noWeekdays: return "an empty list of weekdays"
    case .noDiners: return "an empty list of diners"
    case .positionOutOfRange(let p): return "position must be 1 to \(DeckRules.maxSize), got \(p)"
    case .factorOutOfRange(let f): return "factor must be a finite number above 1, got \(f)"
    case .pinNeedsDish: return "a pin names one dish, not a category or a tag"
    case .positionTaken(let p, let other):
      return "position \(p) is already pinned by rule \(other + 1) on some date for some diner"
    case .dishPinnedTwice(let dish, let other):
      return "dish '\(dish)' is already pinned by rule \(other + 1) on some date for some diner"
    case .alreadyPinnedFirst(let dish):
      return "dish '\(dish)' is pinned first (deck 'pinned') already"
    }
  }
}

/// One thing a restaurant rule did to one dish of one deck.
public struct RuleApplication: Sendable, Equatable {
  public enum Effect: Sendable, Equatable {
    /// Held back from the candidates (it would have been one).
    case hidden
    /// Its score changed from `from` to `to` (the deck is ordered by the last).
    case boosted(from: Double, to: Double)
    case buried(from: Double, to: Double)
    /// Placed by a pin, at this 1-based place of the deck.
    case pinned(at: Int)
  }

  /// The rule's index in `DeckRules.restaurantRules`.
  public var rule: Int
  /// The dish's catalog index.
  public var item: Int32
  public var effect: Effect
  // Made by DeckBuilder only: the compiler's memberwise init, internal to DeckCore.
}

/// How many times each restaurant rule acted over the decks of a run (for its summary).
public struct RuleCounts: Sendable, Equatable {
  /// Per rule (index in `DeckRules.restaurantRules`), its applications.
  public private(set) var applications: [Int]
  /// Per rule, the decks it acted on (once per deck however many dishes it changed there).
  public private(set) var decks: [Int]

  public init(rules: Int) {
    applications = Array(repeating: 0, count: rules)
    decks = applications
  }

  public mutating func add(_ deck: Deck) {
    add(applications: deck.ruleApplications)
  }

  /// Counts one deck's rule applications (`Deck.ruleApplications`).
  public mutating func add(applications deck: [RuleApplication]) {
    var seen: [Int] = []  // the rules that acted on this deck (a few)
    for a in deck {
      applications[a.rule] += 1
      if !seen.contains(a.rule) {
        seen.append(a.rule)
        decks[a.rule] += 1
      }
    }
  }

  public mutating func add(_ other: RuleCounts) {
    precondition(other.applications.count == applications.count, "counts of other rules")
    for (i, n) in other.applications.enumerated() { applications[i] += n }
    for (i, n) in other.decks.enumerated() { decks[i] += n }
  }
}

/// What the restaurant's rules in force for one diner on one date do to the diner's candidates,
/// as `DeckBuilder.candidates` found it (`CandidateSet.restaurant`, nil when no rule acts: the
/// deck is then built exactly as without rules).
public struct RuleEffects: Sendable, Equatable {
  /// A score change to make: candidate `k` (in `CandidateSet.items`) by rule `rule`.
  public struct ScoreChange: Sendable, Equatable {
    public var k: Int
    public var rule: Int
    public var boost: Bool
    public var factor: Double
  }

  /// A candidate to place: candidate `k` at 1-based `position`, by rule `rule`.
  public struct Placement: Sendable, Equatable {
    public var k: Int
    public var position: Int
    public var rule: Int
  }

  /// The dishes hidden (`RuleApplication.Effect.hidden`), in rule order then catalog order.
  public let hidden: [RuleApplication]
  /// In candidate order, then rule order.
  public let scoreChanges: [ScoreChange]
  /// In position order (positions and dishes distinct).
  public let placements: [Placement]

  /// The scores the deck is ordered by, and the changes made (only those that changed a score).
  func adjust(_ scores: [Double], _ items: [Int32]) -> (
    scores: [Double], applied: [RuleApplication]
  ) {
    var out = scores
    var applied: [RuleApplication] = []
    for c in scoreChanges {
      let a = out[c.k]
      let b =
        c.boost ? RestaurantRule.boosted(a, by: c.factor) : RestaurantRule.buried(a, by: c.factor)
      guard !a.isNaN, b != a else { continue }
      out[c.k] = b
      applied.append(
        RuleApplication(
          rule: c.rule, item: items[c.k],
          effect: c.boost ? .boosted(from: a, to: b) : .buried(from: a, to: b)))
    }
    return (out, applied)
  }
}

/// `DeckRules.restaurantRules` checked against a catalog, each with the catalog indices it
/// matches, split by action.
struct CompiledRestaurantRules: Sendable {
  struct Rule: Sendable {
    let index: Int
    let action: RestaurantRule.Action
    /// Catalog indices, ascending.
    let items: [Int32]
    let diners: Set<IDKey>?
    let window: Availability

    func inForce(for user: String, on date: DeckDate) -> Bool {
      window.allows(date) && (diners.map { $0.contains(IDKey(user)) } ?? true)
    }
  }

  let hides: [Rule]
  let scores: [Rule]
  let pins: [Rule]

  /// Nil for no rules. Throws the first problem, in rule order (`RestaurantRule.validate`, then
  /// the targets against the catalog, then pins against earlier pins and `pinnedFirst`).
  static func compile(_ rules: [RestaurantRule], catalog: Catalog, pinnedFirst: [Int32])
    throws(DeckCoreError) -> CompiledRestaurantRules?
  {
    guard !rules.isEmpty else { return nil }
    var hides: [Rule] = []
    var scores: [Rule] = []
    var pins: [Rule] = []
    for (index, rule) in rules.enumerated() {
      try rule.validate(index: index)
      let items = try matches(rule.target, catalog, index)
      if case .pin = rule.action {
        try checkPin(rule, index, item: items[0], rules, catalog, pinnedFirst)
      }
      let compiled = Rule(
        index: index, action: rule.action, items: items,
        diners: rule.diners.map { Set($0.map { IDKey($0) }) }, window: rule.window)
      switch rule.action {
      case .hide: hides.append(compiled)
      case .boost, .bury: scores.append(compiled)
      case .pin: pins.append(compiled)
      }
    }
    return CompiledRestaurantRules(hides: hides, scores: scores, pins: pins)
  }

  /// The catalog indices a target matches (at least one, or the target is unknown).
  private static func matches(_ target: RestaurantRule.Target, _ catalog: Catalog, _ index: Int)
    throws(DeckCoreError) -> [Int32]
  {
    var items: [Int32] = []
    switch target {
    case .dish(let id):
      if let i = catalog.index(of: id) { items = [i] }
    case .category(let name):
      if let c = catalog.categories.firstIndex(where: { IDKey.same($0, name) }) {
        items = catalog.itemCategory.indices.filter { catalog.itemCategory[$0] == Int32(c) }
          .map(Int32.init)
      }
    case .tag(let name):
      if let t = catalog.tags.firstIndex(where: { IDKey.same($0, name) }) {
        items = catalog.itemTags.indices.filter { catalog.itemTags[$0].contains(Int32(t)) }
          .map(Int32.init)
      }
    }
    guard items.isEmpty else { return items }
    let problem: RestaurantRuleProblem =
      switch target {
      case .dish(let v): .unknownDish(v)
      case .category(let v): .unknownCategory(v)
      case .tag(let v): .unknownTag(v)
      }
    throw .invalidRestaurantRule(rule: index, field: target.field, problem: problem)
  }

  /// A pin against the pins before it that can meet it, and the items pinned first.
  private static func checkPin(
    _ rule: RestaurantRule, _ index: Int, item: Int32, _ rules: [RestaurantRule],
    _ catalog: Catalog, _ pinnedFirst: [Int32]
  ) throws(DeckCoreError) {
    guard case .pin(let position) = rule.action else { return }
    let dish = catalog[item].id
    if pinnedFirst.contains(item) {
      throw .invalidRestaurantRule(
        rule: index, field: "dish", problem: .alreadyPinnedFirst(dish: dish))
    }
    for (j, other) in rules[..<index].enumerated() {
      guard case .pin(let p) = other.action, RestaurantRule.canMeet(rule, other) else { continue }
      if p == position {
        throw .invalidRestaurantRule(
          rule: index, field: "pin", problem: .positionTaken(position: p, byRule: j))
      }
      if other.target == rule.target {
        throw .invalidRestaurantRule(
          rule: index, field: "dish", problem: .dishPinnedTwice(dish: dish, byRule: j))
      }
    }
  }

  /// The rules in force for `user` on `date`, nil when none is.
  func inForce(for user: String, on date: DeckDate) -> CompiledRestaurantRules? {
    let h = hides.filter { $0.inForce(for: user, on: date) }
    let s = scores.filter { $0.inForce(for: user, on: date) }
    let p = pins.filter { $0.inForce(for: user, on: date) }
    if h.isEmpty && s.isEmpty && p.isEmpty { return nil }
    return CompiledRestaurantRules(hides: h, scores: s, pins: p)
  }

  /// Holds back the dishes of these hide rules (in force) that are still candidates in `state`
  /// (below 2, as `DeckBuilder.candidates` keeps it), marking them 255: what they hid, in rule
  /// order then catalog order.
  func hide(_ state: inout [UInt8]) -> [RuleApplication] {
    var hidden: [RuleApplication] = []
    for rule in hides {
      for i in rule.items where state[Int(i)] < 2 {
        state[Int(i)] = .max
        hidden.append(RuleApplication(rule: rule.index, item: i, effect: .hidden))
      }
    }
    return hidden
  }

  /// The score changes and placements of these rules (in force) for the candidates `items`
  /// (ascending catalog indices), given the items pinned first; `hidden` as recorded. Nil when
  /// there is nothing to do.
  func effects(items: [Int32], pinnedFirst: [Int32], hidden: [RuleApplication]) -> RuleEffects? {
    var scoreChanges: [RuleEffects.ScoreChange] = []
    var placements: [RuleEffects.Placement] = []
    func position(_ i: Int32) -> Int? {
      var lo = 0
      var hi = items.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if items[mid] < i { lo = mid + 1 } else { hi = mid }
      }
      return lo < items.count && items[lo] == i ? lo : nil
    }
    for rule in scores {
      guard let factor = rule.factor else { continue }
      for i in rule.items {
        guard let k = position(i) else { continue }
        scoreChanges.append(
          RuleEffects.ScoreChange(k: k, rule: rule.index, boost: rule.isBoost, factor: factor))
      }
    }
    // Stable: rule order within a candidate.
    scoreChanges.sort { $0.k != $1.k ? $0.k < $1.k : $0.rule < $1.rule }
    for rule in pins {
      guard case .pin(let p) = rule.action, let i = rule.items.first, !pinnedFirst.contains(i),
        let k = position(i)
      else { continue }
      placements.append(RuleEffects.Placement(k: k, position: p, rule: rule.index))
    }
    placements.sort { $0.position < $1.position }
    if hidden.isEmpty && scoreChanges.isEmpty && placements.isEmpty { return nil }
    return RuleEffects(hidden: hidden, scoreChanges: scoreChanges, placements: placements)
  }
}

extension CompiledRestaurantRules.Rule {
  fileprivate var factor: Double? {
    switch action {
    case .boost(let f), .bury(let f): return f
    case .pin, .hide: return nil
    }
  }

  fileprivate var isBoost: Bool {
    if case .boost = action { return true }
    return false
  }
}

extension DeckBuilder {
  /// `order` (the pinned items, then the rest) with the restaurant's pins put in: each at its
  /// position when the deck reaches it and no pinned item holds it; those whose position a
  /// pinned item holds at the first places after the pinned items, those beyond the deck at the
  /// last places, both in position order; the rest fill the other places in order.
  static func place(
    _ placements: [RuleEffects.Placement], into order: [Int], capped: Int, pins: Int
  ) -> SlotOrder {
    let count = order.count + placements.count
    var out = [Int](repeating: -1, count: count)
    out[..<pins] = order[..<pins]
    var placed: [(j: Int, rule: Int)] = []
    var early: [RuleEffects.Placement] = []
    var late: [RuleEffects.Placement] = []
    for p in placements {
      if p.position <= pins {
        early.append(p)
      } else if p.position > count {
        late.append(p)
      } else {
        out[p.position - 1] = p.k
        placed.append((p.position - 1, p.rule))
      }
    }
    let free = (pins..<count).filter { out[$0] < 0 }
    for (j, p) in Array(zip(free, early)) + zip(free.suffix(late.count), late) {
      out[j] = p.k
      placed.append((j, p.rule))
    }
    var rest = pins
    for j in free where out[j] < 0 {
      out[j] = order[rest]
      rest += 1
    }
    return SlotOrder(order: out, pins: pins, capped: capped, placed: placed.sorted { $0.j < $1.j })
  }
}
