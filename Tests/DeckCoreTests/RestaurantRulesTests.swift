import Testing

@testable import DeckCore

/// Builds one deck with restaurant rules (scores default to catalog order descending).
private func ruled(
  _ items: [MenuItem], _ restaurant: [RestaurantRule],
  configure: (inout DeckRules) -> Void = { _ in }, user: UserProfile = UserProfile(id: "u"),
  history: UserHistory? = nil, date: DeckDate = Fixture.date, scores: [String: Double] = [:]
) throws -> (ids: [String], deck: Deck, candidates: CandidateSet) {
  try Fixture.deck(
    items,
    rules: Fixture.rules {
      $0.restaurantRules = restaurant
      configure(&$0)
    }, user: user, history: history, date: date, scores: scores)
}

@Suite("Restaurant rules: each action")
struct RestaurantRuleActionTests {
  @Test("hide keeps a dish off the deck, counts it as held back and records it")
  func hide() throws {
    let items = Fixture.items("a1", "b1", "c1")
    let r = try ruled(items, [RestaurantRule(.hide, .dish("b1"))]) { $0.size = 3 }
    #expect(r.ids == ["a1", "c1"])
    #expect(r.candidates.heldBack == [0, 0, 0, 0, 0, 0, 0])
    #expect(r.deck.shortfall?.hiddenByRule == 1)
    #expect(r.deck.ruleApplications == [RuleApplication(rule: 0, item: 1, effect: .hidden)])
    #expect(r.deck.shortfall?.description == "deck has 2 of 3 cards (held back: 1 by hide rule)")
  }

  @Test("hide by category and by tag; for listed diners only")
  func hideByCategoryAndTag() throws {
    let items = [
      Fixture.item("a1", "a"), MenuItem(id: "a2", name: "A2", category: "a", tags: ["spicy"]),
      MenuItem(id: "b1", name: "B1", category: "b", tags: ["spicy"]), Fixture.item("c1", "c"),
    ]
    let rules = [
      RestaurantRule(.hide, .category("a"), diners: ["ann"]),
      RestaurantRule(.hide, .tag("spicy"), diners: ["bob"]),
    ]
    let ann = try ruled(items, rules, user: UserProfile(id: "ann"))
    #expect(ann.ids == ["b1", "c1"])
    let bob = try ruled(items, rules, user: UserProfile(id: "bob"))
    #expect(bob.ids == ["a1", "c1"])
    #expect(bob.deck.ruleApplications.map(\.rule) == [1, 1])
    let cat = try ruled(items, rules, user: UserProfile(id: "cat"))
    #expect(cat.ids == ["a1", "b1", "a2", "c1"])
    #expect(cat.deck.ruleApplications.isEmpty)
  }

  @Test("a hide on a dish another reason holds back does nothing and is not recorded")
  func hideAfterOtherReasons() throws {
    let items = [Fixture.item("a1", "a", allergens: ["egg"]), Fixture.item("b1", "b")]
    let r = try ruled(
      items, [RestaurantRule(.hide, .dish("a1"))], user: UserProfile(id: "u", allergens: ["egg"]))
    #expect(r.ids == ["b1"])
    #expect(r.candidates.heldBack[HoldBackReason.allergen.rawValue] == 1)
    #expect(r.candidates.restaurant == nil)
    #expect(r.deck.ruleApplications.isEmpty)
  }

  @Test("a hidden pinned item is a skipped pin")
  func hidePinned() throws {
    let items = Fixture.items("a1", "b1", "c1")
    let r = try ruled(items, [RestaurantRule(.hide, .dish("c1"))]) { $0.pinned = ["c1"] }
    #expect(r.ids == ["a1", "b1"])
    #expect(r.deck.skippedPins == ["c1"])
  }

  @Test("boost lifts a dish by its factor; the card carries the boosted score")
  func boost() throws {
    let items = Fixture.items("a1", "b1", "c1")
    let r = try ruled(
      items, [RestaurantRule(.boost(factor: 4), .dish("c1"))],
      configure: { $0.size = 3 }, scores: ["a1": 1, "b1": 0.5, "c1": 0.3])
    #expect(r.ids == ["c1", "a1", "b1"])
    #expect(r.deck.cards[0].score == 1.2)
    #expect(
      r.deck.ruleApplications == [
        RuleApplication(rule: 0, item: 2, effect: .boosted(from: 0.3, to: 1.2))
      ])
  }

  @Test("bury lowers a dish; negative scores move the right way")
  func bury() throws {
    let items = Fixture.items("a1", "b1", "c1")
    let r = try ruled(
      items, [RestaurantRule(.bury(factor: 2), .dish("a1"))],
      configure: { $0.size = 3 }, scores: ["a1": -1, "b1": -1.5, "c1": -3])
    #expect(r.ids == ["b1", "a1", "c1"])
    #expect(r.deck.cards[1].score == -2)
  }

  @Test("a score of 0 stays 0 and is not recorded")
  func zeroScore() throws {
    let items = Fixture.items("a1", "b1")
    let r = try ruled(
      items, [RestaurantRule(.boost(factor: 2), .dish("b1"))], scores: ["a1": 0, "b1": 0])
    #expect(r.ids == ["a1", "b1"])
    #expect(r.deck.ruleApplications.isEmpty)
  }

  @Test(
    "the transforms are monotone for any sign, boost never lowers and bury never raises",
    arguments: [1.5, 2, 1e300])
  func transforms(factor: Double) {
    let scores: [Double] = [
      -.infinity, -1e300, -3, -1, -1e-300, 0, 1e-300, 0.5, 2, 1e300, .infinity,
    ]
    for (s, t) in zip(scores, scores.dropFirst()) {
      #expect(RestaurantRule.boosted(s, by: factor) <= RestaurantRule.boosted(t, by: factor))
      #expect(RestaurantRule.buried(s, by: factor) <= RestaurantRule.buried(t, by: factor))
    }
    for s in scores {
      #expect(RestaurantRule.boosted(s, by: factor) >= s)
      #expect(RestaurantRule.buried(s, by: factor) <= s)
    }
    for s in scores where s.isFinite {
      #expect(RestaurantRule.boosted(s, by: factor).isFinite)
      #expect(RestaurantRule.buried(s, by: factor).isFinite)
    }
    #expect(RestaurantRule.boosted(.nan, by: factor).isNaN)
    #expect(RestaurantRule.buried(.nan, by: factor).isNaN)
  }

  @Test("a boost or bury that changed a score drops the strategy's propensities")
  func boostDropsPropensities() throws {
    let catalog = try Catalog(items: Fixture.items("a1", "b1"))
    var rules = Fixture.rules { $0.size = 2 }
    rules.restaurantRules = [RestaurantRule(.boost(factor: 2), .dish("a1"))]
    let builder = try DeckBuilder(catalog: catalog, rules: rules)
    let c = builder.candidates(for: UserProfile(id: "u"), history: nil, date: Fixture.date)
    #expect(!builder.keepsScoreOrder(c))
    let deck = builder.assemble(
      user: "u", date: Fixture.date, candidates: c, scores: [0.25, 0.75], propensities: [0.4, 0.6])
    #expect(deck.cards == [Card(item: 1, score: 0.75), Card(item: 0, score: 0.5)])
    #expect(builder.deckOrder(candidates: c, scores: [0.25, 0.75]) == [1, 0])
    #expect(builder.deckOrder(candidates: c, scores: [0.4, 0.75]) == [0, 1])
  }

  @Test("pin at a position: the dish is there, marked pinned, and recorded")
  func pin() throws {
    let items = Fixture.items("a1", "b1", "c1", "d1", "e1")
    let r = try ruled(items, [RestaurantRule(.pin(position: 2), .dish("e1"))]) { $0.size = 4 }
    #expect(r.ids == ["a1", "e1", "b1", "c1"])
    #expect(r.deck.cards.map(\.pinned) == [false, true, false, false])
    #expect(r.deck.ruleApplications == [RuleApplication(rule: 0, item: 4, effect: .pinned(at: 2))])
  }

  @Test("pins at positions come after the pinned items: a taken position gives the next place")
  func pinAfterPinnedFirst() throws {
    let items = Fixture.items("a1", "b1", "c1", "d1")
    let r = try ruled(items, [RestaurantRule(.pin(position: 1), .dish("d1"))]) {
      $0.pinned = ["c1"]
    }
    #expect(r.ids == ["c1", "d1", "a1", "b1"])
    #expect(r.deck.ruleApplications == [RuleApplication(rule: 0, item: 3, effect: .pinned(at: 2))])
  }

  @Test("a deck shorter than the position puts the pinned dish last")
  func pinBeyondDeck() throws {
    let items = Fixture.items("a1", "b1", "c1")
    let r = try ruled(
      items,
      [
        RestaurantRule(.pin(position: 7), .dish("a1")),
        RestaurantRule(.pin(position: 5), .dish("b1")),
      ]
    ) { $0.size = 10 }
    #expect(r.ids == ["c1", "b1", "a1"])
    #expect(r.deck.ruleApplications.map(\.effect) == [.pinned(at: 2), .pinned(at: 3)])
    let small = try ruled(items, [RestaurantRule(.pin(position: 3), .dish("a1"))]) { $0.size = 2 }
    #expect(small.ids == ["b1", "a1"])
  }

  @Test("pins bypass the category cap but count towards it, as the pinned items do")
  func pinBypassesCap() throws {
    let items = Fixture.items("a1", "a2", "a3", "b1")
    let r = try ruled(items, [RestaurantRule(.pin(position: 3), .dish("a3"))]) {
      $0.size = 4
      $0.maxPerCategory = 1
      $0.avoidAdjacentCategory = false
    }
    #expect(r.ids == ["b1", "a3"])
    #expect(r.deck.shortfall?.cappedByCategory == 2)
  }

  @Test("pins bypass freshness but not diets, and a hide beats a pin")
  func pinEligibility() throws {
    let items = [
      Fixture.item("a1", "a"), Fixture.item("b1", "b", diets: ["vegan"]), Fixture.item("c1", "c"),
    ]
    let h = try Fixture.history(items, [("c1", .right, 1)])
    let fresh = try ruled(items, [RestaurantRule(.pin(position: 1), .dish("c1"))], history: h)
    #expect(fresh.ids == ["c1", "a1", "b1"])
    let diet = try ruled(
      items, [RestaurantRule(.pin(position: 1), .dish("a1"))],
      user: UserProfile(id: "u", diets: ["vegan"]))
    #expect(diet.ids == ["b1"])
    #expect(diet.deck.ruleApplications.isEmpty)
    let hidden = try ruled(
      items, [RestaurantRule(.pin(position: 1), .dish("c1")), RestaurantRule(.hide, .dish("c1"))])
    #expect(hidden.ids == ["a1", "b1"])
    #expect(hidden.deck.ruleApplications == [RuleApplication(rule: 1, item: 2, effect: .hidden)])
  }

  @Test("windows and weekdays: a rule out of force does nothing")
  func windows() throws {
    let items = Fixture.items("a1", "b1")
    let day = Fixture.date  // a Sunday
    let cases: [(RestaurantRule, Bool)] = [
      (RestaurantRule(.hide, .dish("a1"), validFrom: day, validUntil: day), true),
      (RestaurantRule(.hide, .dish("a1"), validFrom: day.adding(days: 1)), false),
      (RestaurantRule(.hide, .dish("a1"), validUntil: day.adding(days: -1)), false),
      (RestaurantRule(.hide, .dish("a1"), weekdays: [.sunday]), true),
      (RestaurantRule(.hide, .dish("a1"), weekdays: [.monday, .saturday]), false),
    ]
    for (rule, acts) in cases {
      let r = try ruled(items, [rule])
      #expect(r.ids == (acts ? ["b1"] : ["a1", "b1"]))
    }
  }

  @Test("counts per rule add up over decks")
  func counts() throws {
    let items = Fixture.items("a1", "b1", "c1")
    let rules = [
      RestaurantRule(.hide, .dish("a1")), RestaurantRule(.pin(position: 1), .dish("c1")),
    ]
    var counts = RuleCounts(rules: 2)
    for _ in 0..<3 { counts.add(try ruled(items, rules).deck) }
    #expect(counts.applications == [3, 3])
    #expect(counts.decks == [3, 3])
    var more = RuleCounts(rules: 2)
    more.add(counts)
    #expect(more == counts)
  }
}

@Suite("Restaurant rules: validation")
struct RestaurantRuleValidationTests {
  private func error(_ rules: [RestaurantRule], pinned: [String] = []) throws -> DeckCoreError? {
    let catalog = try Catalog(items: [
      MenuItem(id: "a1", name: "A", category: "a", tags: ["spicy"]), Fixture.item("b1", "b"),
      Fixture.item("caf\u{E9}", "b"),
    ])
    var r = DeckRules()
    r.pinned = pinned
    r.restaurantRules = rules
    do {
      _ = try DeckBuilder(catalog: catalog, rules: r)
      return nil
    } catch {
      return error
    }
  }

  private func problem(_ rule: Int, _ field: String, _ p: RestaurantRuleProblem) -> DeckCoreError {
    .invalidRestaurantRule(rule: rule, field: field, problem: p)
  }

  @Test("unknown dish, category and tag give the rule, the field and the name")
  func unknownNames() throws {
    let ok = RestaurantRule(.hide, .dish("a1"))
    #expect(
      try error([ok, RestaurantRule(.hide, .dish("zz"))]) == problem(1, "dish", .unknownDish("zz")))
    #expect(
      try error([RestaurantRule(.hide, .category("c"))])
        == problem(0, "category", .unknownCategory("c")))
    #expect(
      try error([RestaurantRule(.hide, .tag("mild"))]) == problem(0, "tag", .unknownTag("mild")))
    #expect(
      try error([RestaurantRule(.hide, .tag("spicy")), RestaurantRule(.hide, .category("b"))])
        == nil)
    // By bytes: decomposed "cafe\u{301}" is not the catalog's precomposed "caf\u{E9}".
    #expect(try error([RestaurantRule(.hide, .dish("caf\u{E9}"))]) == nil)
    #expect(try error([RestaurantRule(.hide, .dish("cafe\u{301}"))]) != nil)
    #expect(
      problem(1, "dish", .unknownDish("zz")).description == "rule 2, dish: unknown dish 'zz'")
  }

  @Test("a window that ends before it starts, empty weekdays or diners")
  func windows() throws {
    let d = Fixture.date
    #expect(
      try error([RestaurantRule(.hide, .dish("a1"), validFrom: d, validUntil: d.adding(days: -1))])
        == problem(0, "valid_until", .windowEndsBeforeStart(from: d, until: d.adding(days: -1))))
    #expect(
      try error([RestaurantRule(.hide, .dish("a1"), weekdays: [])])
        == problem(0, "weekdays", .noWeekdays))
    #expect(
      try error([RestaurantRule(.hide, .dish("a1"), diners: [])]) == problem(0, "diners", .noDiners)
    )
    #expect(try error([RestaurantRule(.hide, .dish("a1"), validFrom: d, validUntil: d)]) == nil)
  }

  @Test("positions out of range, factors not finite or not above 1, pins of a category")
  func values() throws {
    for p in [0, -1, DeckRules.maxSize + 1] {
      #expect(
        try error([RestaurantRule(.pin(position: p), .dish("a1"))])
          == problem(0, "pin", .positionOutOfRange(p)))
    }
    #expect(try error([RestaurantRule(.pin(position: DeckRules.maxSize), .dish("a1"))]) == nil)
    for f in [1, 0.5, 0, -2, .infinity] as [Double] {
      #expect(
        try error([RestaurantRule(.boost(factor: f), .dish("a1"))])
          == problem(0, "boost", .factorOutOfRange(f)))
      #expect(
        try error([RestaurantRule(.bury(factor: f), .dish("a1"))])
          == problem(0, "bury", .factorOutOfRange(f)))
    }
    #expect(
      try error([RestaurantRule(.bury(factor: .nan), .dish("a1"))]).map {
        if case .invalidRestaurantRule(0, "bury", .factorOutOfRange(let f)) = $0 {
          return f.isNaN
        }
        return false
      } == true)
    #expect(
      try error([RestaurantRule(.pin(position: 1), .category("a"))])
        == problem(0, "category", .pinNeedsDish))
    #expect(
      try error([RestaurantRule(.pin(position: 1), .tag("spicy"))])
        == problem(0, "tag", .pinNeedsDish))
  }

  @Test("two pins on one position, or of one dish, only when they can meet")
  func pinConflicts() throws {
    let d = Fixture.date  // Sunday
    let one = RestaurantRule(.pin(position: 1), .dish("a1"))
    #expect(
      try error([one, RestaurantRule(.pin(position: 1), .dish("b1"))])
        == problem(1, "pin", .positionTaken(position: 1, byRule: 0)))
    #expect(
      try error([one, RestaurantRule(.pin(position: 2), .dish("a1"))])
        == problem(1, "dish", .dishPinnedTwice(dish: "a1", byRule: 0)))
    let meet: [(RestaurantRule, RestaurantRule, Bool)] = [
      (
        RestaurantRule(.hide, .dish("a1"), diners: ["x"]),
        RestaurantRule(.hide, .dish("a1"), diners: ["y"]), false
      ),
      (
        RestaurantRule(.hide, .dish("a1"), diners: ["x", "y"]),
        RestaurantRule(.hide, .dish("a1"), diners: ["y"]), true
      ),
      (
        RestaurantRule(.hide, .dish("a1"), weekdays: [.monday]),
        RestaurantRule(.hide, .dish("a1"), weekdays: [.friday]), false
      ),
      (
        RestaurantRule(.hide, .dish("a1"), validUntil: d),
        RestaurantRule(.hide, .dish("a1"), validFrom: d.adding(days: 1)), false
      ),
      (
        RestaurantRule(.hide, .dish("a1"), validUntil: d),
        RestaurantRule(.hide, .dish("a1"), validFrom: d), true
      ),
      // 2026-11-29 to 12-01 is Sunday to Tuesday: no Friday in it.
      (
        RestaurantRule(.hide, .dish("a1"), validFrom: d, validUntil: d.adding(days: 2)),
        RestaurantRule(.hide, .dish("a1"), weekdays: [.friday]), false
      ),
      (
        RestaurantRule(.hide, .dish("a1"), validFrom: d, validUntil: d.adding(days: 6)),
        RestaurantRule(.hide, .dish("a1"), weekdays: [.friday]), true
      ),
      (
        RestaurantRule(.hide, .dish("a1"), validFrom: d, validUntil: d.adding(days: 2)),
        RestaurantRule(.hide, .dish("a1"), weekdays: [.monday]), true
      ),
    ]
    for (a, b, expected) in meet {
      #expect(RestaurantRule.canMeet(a, b) == expected)
      #expect(RestaurantRule.canMeet(b, a) == expected)
    }
    // Pins that cannot meet may share a position.
    var monday = RestaurantRule(.pin(position: 1), .dish("a1"), weekdays: [.monday])
    var tuesday = RestaurantRule(.pin(position: 1), .dish("b1"), weekdays: [.tuesday])
    #expect(try error([monday, tuesday]) == nil)
    monday.diners = ["x"]
    tuesday.weekdays = nil
    tuesday.diners = ["y"]
    #expect(try error([monday, tuesday]) == nil)
  }

  @Test("a pin of a dish already pinned first")
  func pinnedFirst() throws {
    #expect(
      try error([RestaurantRule(.pin(position: 2), .dish("a1"))], pinned: ["a1"])
        == problem(0, "dish", .alreadyPinnedFirst(dish: "a1")))
  }
}

/// Random small catalogs, deck rules, restaurant rules, diners, dates and scores.
struct RuleCase {
  static let base = Fixture.date
  static let diners = ["u0", "u1", "u2"]

  var items: [MenuItem] = []
  var rules = DeckRules()
  var user = UserProfile(id: "u0")
  var date = RuleCase.base
  /// Per catalog item.
  var scores: [Double] = []
  /// (item, swipe, days before the date).
  var history: [(Int32, SwipeDirection, Int)] = []

  init(_ g: inout RandomStream) {
    let n = 1 + g.nextInt(below: 7)
    for i in 0..<n {
      var item = Fixture.item("d\(i)", ["a", "b", "c"][g.nextInt(below: 3)])
      item.tags = ["x", "y"].filter { _ in g.nextInt(below: 2) == 0 }
      if g.nextInt(below: 6) == 0 { item.allergens = ["egg"] }
      if g.nextInt(below: 6) == 0 {
        item.availability = Availability(weekdays: RuleCase.weekdays(&g))
      }
      items.append(item)
      let fixed: [Double] = [-2, -1, -0.5, 0, 0, 0.5, 1, 2]
      let k = g.nextInt(below: fixed.count + 2)
      scores.append(k < fixed.count ? fixed[k] : g.nextDouble() * 4 - 2)
    }
    user = UserProfile(
      id: RuleCase.diners[g.nextInt(below: 3)],
      allergens: g.nextInt(below: 5) == 0 ? ["egg"] : [])
    date = RuleCase.base.adding(days: g.nextInt(below: 14))
    rules.size = 1 + g.nextInt(below: 6)
    rules.maxPerCategory = [nil, 1, 2, 3][g.nextInt(below: 4)]
    rules.avoidAdjacentCategory = g.nextInt(below: 2) == 0
    let pinned = g.nextInt(below: n)
    if g.nextInt(below: 5) == 0 { rules.pinned = ["d\(pinned)"] }
    let excluded = g.nextInt(below: n)
    if excluded != pinned && g.nextInt(below: 8) == 0 { rules.excluded = ["d\(excluded)"] }
    rules.restaurantRules = (0..<g.nextInt(below: 5)).map { _ in RuleCase.rule(&g, n) }
    if g.nextInt(below: 4) == 0 {
      history = (0..<(1 + g.nextInt(below: 2))).map { _ in
        (
          Int32(g.nextInt(below: n)), g.nextInt(below: 2) == 0 ? .right : .left,
          1 + g.nextInt(below: 7)
        )
      }
    }
  }

  static func weekdays(_ g: inout RandomStream) -> Set<Weekday> {
    var days = Set(Weekday.allCases.filter { _ in g.nextInt(below: 2) == 0 })
    if days.isEmpty { days.insert(Weekday(rawValue: 1 + g.nextInt(below: 7))!) }
    return days
  }

  static func rule(_ g: inout RandomStream, _ n: Int) -> RestaurantRule {
    let factor = [1.5, 2, 10][g.nextInt(below: 3)]
    let action: RestaurantRule.Action =
      switch g.nextInt(below: 4) {
      case 0: .pin(position: 1 + g.nextInt(below: 6))
      case 1: .boost(factor: factor)
      case 2: .bury(factor: factor)
      default: .hide
      }
    let dish = RestaurantRule.Target.dish("d\(g.nextInt(below: n))")
    var target = dish
    if case .pin = action {
    } else {
      switch g.nextInt(below: 3) {
      case 0: target = .category(["a", "b", "c"][g.nextInt(below: 3)])
      case 1: target = .tag(["x", "y"][g.nextInt(below: 2)])
      default: break
      }
    }
    var rule = RestaurantRule(action, target)
    if g.nextInt(below: 3) == 0 {
      let some = ["u0", "u1", "u2", "u9"].filter { _ in g.nextInt(below: 2) == 0 }
      rule.diners = some.isEmpty ? ["u1"] : some
    }
    if g.nextInt(below: 2) == 0 { rule.validFrom = base.adding(days: g.nextInt(below: 20) - 3) }
    if g.nextInt(below: 2) == 0 { rule.validUntil = base.adding(days: g.nextInt(below: 20) - 3) }
    if let from = rule.validFrom, let until = rule.validUntil, until < from {
      (rule.validFrom, rule.validUntil) = (until, from)
    }
    if g.nextInt(below: 4) == 0 { rule.weekdays = weekdays(&g) }
    return rule
  }

  /// Whether `rule` is in force for this case's diner and date (computed here, not by DeckCore).
  func inForce(_ rule: RestaurantRule) -> Bool {
    if let from = rule.validFrom, date < from { return false }
    if let until = rule.validUntil, date > until { return false }
    if let days = rule.weekdays, !days.contains(date.weekday) { return false }
    return rule.diners?.contains(user.id) ?? true
  }

  /// The catalog indices a target names.
  func matches(_ target: RestaurantRule.Target) -> [Int32] {
    items.indices.filter { i in
      switch target {
      case .dish(let id): return items[i].id == id
      case .category(let c): return items[i].category == c
      case .tag(let t): return items[i].tags.contains(t)
      }
    }.map(Int32.init)
  }

  /// The deck under `rules` (this case's, by default).
  func build(_ rules: DeckRules? = nil) throws -> (deck: Deck, set: CandidateSet) {
    let catalog = try Catalog(items: items)
    let builder = try DeckBuilder(catalog: catalog, rules: rules ?? self.rules)
    var userHistory: UserHistory?
    if !history.isEmpty {
      var b = HistoryBuilder(itemCount: items.count, cutoff: date)
      let slot = b.userSlot(user.id)
      for (item, swipe, ago) in history {
        b.add(user: slot, item: item, swipe: swipe, day: date.adding(days: -ago).daysSinceEpoch)
      }
      userHistory = try b.build().users[user.id]
    }
    let set = builder.candidates(for: user, history: userHistory, date: date)
    let s = set.items.map { scores[Int($0)] }
    let deck = builder.assemble(user: user.id, date: date, candidates: set, scores: s)
    try checkOrders(builder, set, s, deck)
    return (deck, set)
  }

  /// The orders a stochastic strategy asks for are the deck's: `deckOrder` for the scores, and,
  /// without boosts or burials in force, `deckOrder` for their key order (`DeckSlots`' way); a
  /// deck that `keepsScoreOrder` is the candidates' first in key order.
  private func checkOrders(
    _ builder: DeckBuilder, _ set: CandidateSet, _ s: [Double], _ deck: Deck
  ) throws {
    let order = try deck.cards.map { card in try #require(set.items.firstIndex(of: card.item)) }
    #expect(builder.deckOrder(candidates: set, scores: s) == order)
    let key = set.items.indices.sorted { a, b in
      if set.recentlyShown[a] != set.recentlyShown[b] { return !set.recentlyShown[a] }
      return s[a] != s[b] ? s[a] > s[b] : a < b
    }
    if set.restaurant?.scoreChanges.isEmpty ?? true {
      var next = key.makeIterator()
      #expect(builder.deckOrder(candidates: set, keyOrder: { next.next() }) == order)
    }
    if builder.keepsScoreOrder(set) { #expect(Array(key.prefix(builder.rules.size)) == order) }
  }

  /// This case's rules without restaurant rule `r`.
  func without(_ r: Int) -> DeckRules {
    var rules = self.rules
    rules.restaurantRules.remove(at: r)
    return rules
  }
}

@Suite("Restaurant rules: properties")
struct RestaurantRulePropertyTests {
  /// Drops the rules DeckBuilder refuses (one at a time, by the index its error names) until it
  /// accepts the rest: the errors must name a rule that exists.
  private static func valid(_ c: inout RuleCase) throws {
    while true {
      do {
        _ = try DeckBuilder(catalog: try Catalog(items: c.items), rules: c.rules)
        return
      } catch {
        guard case .invalidRestaurantRule(let rule, _, _) = error else { throw error }
        try #require(c.rules.restaurantRules.indices.contains(rule))
        c.rules.restaurantRules.remove(at: rule)
      }
    }
  }

  @Test("100,000 random cases: hides, pins, windows, and every application changed something")
  func properties() throws {
    var g = RandomStream(seed: 29)
    var acted = [0, 0, 0, 0]  // hidden, boosted, buried, pinned: the generator must reach each
    for _ in 0..<100_000 {
      var c = RuleCase(&g)
      try Self.valid(&c)
      let (deck, set) = try c.build()
      let onDeck = deck.cards.map(\.item)
      for (r, rule) in c.rules.restaurantRules.enumerated() {
        guard c.inForce(rule) else {
          // Out of its window or not for this diner: the deck is the deck without it.
          var expected = try c.build(c.without(r)).deck
          expected.ruleApplications = expected.ruleApplications.map {
            RuleApplication(
              rule: $0.rule >= r ? $0.rule + 1 : $0.rule, item: $0.item, effect: $0.effect)
          }
          #expect(deck == expected)
          continue
        }
        switch rule.action {
        case .hide:
          #expect(c.matches(rule.target).allSatisfy { !onDeck.contains($0) })
        case .pin(let p):
          try Self.checkPin(c, deck, set, rule: r, position: p)
        case .boost, .bury:
          break
        }
      }
      try Self.checkApplications(c, deck, set, &acted, pick: g.nextInt(below: 4) == 0)
      if c.rules.restaurantRules.isEmpty {
        #expect(deck.ruleApplications.isEmpty && set.restaurant == nil)
      }
    }
    #expect(acted.allSatisfy { $0 > 1_000 })
  }

  /// A pin in force: its dish, when eligible and the deck has room for it, is on the deck and
  /// pinned; at its position when the deck reaches it and no pinned item holds it; after every
  /// card not pinned when the deck is shorter.
  private static func checkPin(
    _ c: RuleCase, _ deck: Deck, _ set: CandidateSet, rule r: Int, position p: Int
  ) throws {
    let dish = c.matches(c.rules.restaurantRules[r].target)[0]
    guard set.items.contains(dish), !set.pinned.contains(dish) else {
      #expect(!deck.ruleApplications.contains { $0.rule == r })
      return
    }
    let first = min(set.pinned.count, c.rules.size)
    let lower = c.rules.restaurantRules.filter { other in
      guard case .pin(let q) = other.action, q < p, c.inForce(other) else { return false }
      let d = c.matches(other.target)[0]
      return set.items.contains(d) && !set.pinned.contains(d)
    }.count
    guard first + lower < c.rules.size else { return }
    let j = try #require(deck.cards.firstIndex { $0.item == dish })
    #expect(deck.cards[j].pinned)
    #expect(
      deck.ruleApplications.contains(
        RuleApplication(rule: r, item: dish, effect: .pinned(at: j + 1))))
    if first < p && deck.cards.count >= p { #expect(j == p - 1) }
    if deck.cards.count < p { #expect(deck.cards[j...].allSatisfy { $0.pinned }) }
  }

  /// Every recorded application changed something: a hidden dish would be a candidate without
  /// the hide rules, a score change changed the score (the changes of a dish chain from the
  /// strategy's score to its card's), a pinned card is where it says and would not be without
  /// its rule. `pick`: check one application against the deck without its rule(s).
  private static func checkApplications(
    _ c: RuleCase, _ deck: Deck, _ set: CandidateSet, _ acted: inout [Int], pick: Bool
  ) throws {
    var score: [Int32: Double] = [:]
    for a in deck.ruleApplications {
      let rule = c.rules.restaurantRules[a.rule]
      #expect(c.inForce(rule) && c.matches(rule.target).contains(a.item))
      switch (a.effect, rule.action) {
      case (.hidden, .hide):
        acted[0] += 1
        #expect(!set.items.contains(a.item))
      case (.boosted(let from, let to), .boost(let f)), (.buried(let from, let to), .bury(let f)):
        if case .boosted = a.effect { acted[1] += 1 } else { acted[2] += 1 }
        #expect(from == (score[a.item] ?? c.scores[Int(a.item)]))
        #expect(to != from)
        let boost = rule.action == .boost(factor: f)
        #expect(
          to == (boost ? RestaurantRule.boosted(from, by: f) : RestaurantRule.buried(from, by: f)))
        score[a.item] = to
      case (.pinned(let at), .pin):
        acted[3] += 1
        #expect(deck.cards[at - 1].item == a.item && deck.cards[at - 1].pinned)
      default:
        Issue.record("rule \(a.rule) (\(rule.action)) recorded \(a.effect)")
      }
    }
    #expect(deck.cards.allSatisfy { $0.score == (score[$0.item] ?? c.scores[Int($0.item)]) })
    guard pick,
      let a = deck.ruleApplications.last(where: { $0.effect == .hidden })
        ?? deck.ruleApplications.first
    else { return }
    switch a.effect {
    case .hidden:
      var rules = c.rules
      rules.restaurantRules.removeAll { $0.action == .hide }
      #expect(try c.build(rules).set.items.contains(a.item))
    case .pinned:
      #expect(try c.build(c.without(a.rule)).deck.cards != deck.cards)
    case .boosted, .buried:
      break
    }
  }
}
