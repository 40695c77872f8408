import Testing

@testable import DeckCore

/// One traced deck: the builder, the diner's history, the candidates and scores it was built
/// from.
private struct Traced {
  var builder: DeckBuilder
  var history: UserHistory?
  var set: CandidateSet
  var scores: [Double]
  var trace: DeckTrace

  init(
    _ items: [MenuItem], _ rules: DeckRules, user: UserProfile, history: UserHistory?,
    date: DeckDate = Fixture.date, score: (MenuItem) -> Double
  ) throws {
    builder = try DeckBuilder(catalog: try Catalog(items: items), rules: rules)
    self.history = history
    set = builder.candidates(for: user, history: history, date: date)
    let scores = set.items.map { score(items[Int($0)]) }
    self.scores = scores
    trace = builder.explain(
      user: user, history: history, date: date, candidates: set, scores: scores)
  }

  func ids(_ items: [Int32]) -> [String] { items.map { builder.catalog[$0].id } }
  var deckIDs: [String] { ids(trace.deck.cards.map(\.item)) }
  func card(_ id: String) -> CardTrace? {
    trace.cards.first { builder.catalog[$0.item].id == id }
  }
}

/// Scores from the catalog order, highest first (the first dish ranks first).
private func descending(_ items: [MenuItem]) -> (MenuItem) -> Double {
  { item in Double(items.count - items.firstIndex(of: item)!) }
}

@Suite("Deck trace: each rule")
struct DeckTraceRuleTests {
  @Test("the category cap leaves a dish out: it is displaced under the cards below it")
  func cap() throws {
    let items = Fixture.items("a1", "a2", "a3", "b1")
    let rules = Fixture.rules {
      $0.size = 3
      $0.maxPerCategory = 2
      $0.avoidAdjacentCategory = false
    }
    let t = try Traced(
      items, rules, user: UserProfile(id: "u"), history: nil, score: descending(items))
    #expect(t.deckIDs == ["a1", "a2", "b1"])
    let b1 = try #require(t.card("b1"))
    #expect(b1.rankBeforeRules == 4 && b1.position == 3 && b1.reasons.isEmpty)
    #expect(
      b1.displaced == [
        DisplacedDish(
          item: 2, strategyScore: 2, rankBeforeRules: 3, position: nil,
          reasons: [TraceReason(rule: .categoryCap(category: "a", cap: 2), without: 3)])
      ])
    #expect(t.card("a1")!.displaced.isEmpty && t.card("a1")!.reasons.isEmpty)
  }

  @Test("spacing moves a card from its rank r to r'")
  func spacing() throws {
    let items = Fixture.items("a1", "a2", "b1")
    let rules = Fixture.rules {
      $0.size = 3
      $0.maxPerCategory = nil
    }
    let t = try Traced(
      items, rules, user: UserProfile(id: "u"), history: nil, score: descending(items))
    #expect(t.deckIDs == ["a1", "b1", "a2"])
    #expect(t.card("b1")!.reasons == [TraceReason(rule: .spacing, without: 3)])
    let a2 = t.card("a2")!
    #expect(a2.reasons == [TraceReason(rule: .spacing, without: 2)])
    #expect(t.card("b1")!.displaced.map(\.rankBeforeRules) == [2])
    #expect(t.card("b1")!.displaced[0].reasons == [TraceReason(rule: .spacing, without: 2)])
  }

  @Test("held back: the swipe's date, the diner's field and value; reshow with its date")
  func heldBack() throws {
    var items = Fixture.items("a1", "a2", "b1", "b2", "c1")
    items[1].allergens = ["egg"]
    for i in items.indices { items[i].diets = ["vegan"] }
    let user = UserProfile(id: "u", diets: ["vegan"], allergens: ["egg"])
    let history = try Fixture.history(
      items, [("a1", .right, 3), ("b1", .left, 1), ("c1", .left, 2)])
    let rules = Fixture.rules {
      $0.cooldownDays = 1
      $0.reshowDays = 2
      $0.avoidAdjacentCategory = false
    }
    // c1 ranks first.
    let t = try Traced(
      items, rules, user: user, history: history,
      score: { $0.id == "c1" ? 10 : descending(items)($0) })
    #expect(
      t.trace.heldBack == [
        HeldBackDish(item: 0, reason: .recentlyPicked(swiped: Fixture.date.adding(days: -3))),
        HeldBackDish(item: 1, reason: .allergen("egg")),
        HeldBackDish(item: 2, reason: .cooldown(swiped: Fixture.date.adding(days: -1))),
      ])
    // c1, shown two days ago, goes behind b2 (shown never), which ranks below it.
    #expect(t.deckIDs == ["b2", "c1"])
    let reshow = TraceReason(
      rule: .recentlyShown(lastShown: Fixture.date.adding(days: -2)), without: 1)
    #expect(t.card("c1")!.reasons == [reshow])
    #expect(
      t.card("b2")!.displaced == [
        DisplacedDish(
          item: 4, strategyScore: 10, rankBeforeRules: 1, position: 2, reasons: [reshow])
      ])
  }

  @Test("diet and disliked category name the diner's value; a hide names its rule")
  func dietAndHide() throws {
    var items = Fixture.items("a1", "b1", "c1", "d1")
    items[0].diets = ["vegetarian"]
    items[3].diets = ["vegetarian"]
    let user = UserProfile(id: "u", diets: ["vegetarian"], dislikedCategories: ["d"])
    let rules = Fixture.rules { $0.restaurantRules = [RestaurantRule(.hide, .dish("a1"))] }
    let t = try Traced(items, rules, user: user, history: nil, score: descending(items))
    #expect(
      t.trace.heldBack == [
        HeldBackDish(item: 0, reason: .hidden(rule: 0)),
        HeldBackDish(item: 1, reason: .diet("vegetarian")),
        HeldBackDish(item: 2, reason: .diet("vegetarian")),
        HeldBackDish(item: 3, reason: .dislikedCategory("d")),
      ])
  }

  @Test("pinned first, a boost and a restaurant pin are listed with the place without them")
  func pinsAndBoosts() throws {
    let items = Fixture.items("a1", "b1", "c1", "d1", "e1")
    let rules = Fixture.rules {
      $0.size = 4
      $0.pinned = ["e1"]
      $0.restaurantRules = [
        RestaurantRule(.boost(factor: 10), .dish("d1")),
        RestaurantRule(.pin(position: 4), .dish("a1")),
      ]
    }
    let t = try Traced(
      items, rules, user: UserProfile(id: "u"), history: nil, score: descending(items))
    #expect(t.deckIDs == ["e1", "d1", "b1", "a1"])
    #expect(t.card("e1")!.reasons == [TraceReason(rule: .pinned, without: nil)])
    let boost = t.trace.deck.ruleApplications.first { $0.rule == 0 }!
    #expect(t.card("d1")!.reasons == [TraceReason(rule: .restaurant(boost), without: nil)])
    let pin = t.trace.deck.ruleApplications.first { $0.rule == 1 }!
    #expect(t.card("a1")!.reasons == [TraceReason(rule: .restaurant(pin), without: 3)])
    // c1 (rank 3) is off the deck: no rule of its own, outranked by the pin and the boost.
    #expect(
      t.card("a1")!.displaced == []
        && t.card("b1")!.displaced.map(\.reasons) == [
          [TraceReason(rule: .restaurant(pin), without: 3)]
        ])
    #expect(t.card("d1")!.displaced.map { t.ids([$0.item]) } == [["a1"], ["b1"], ["c1"]])
    #expect(t.card("d1")!.displaced[2].reasons.isEmpty)
  }
}

@Suite("Deck trace: properties")
struct DeckTracePropertyTests {
  /// A random case with every rule kind: RuleCase's, and diets and disliked categories.
  private static func randomCase(_ g: inout RandomStream) throws -> RuleCase {
    var c = RuleCase(&g)
    if g.nextInt(below: 4) == 0 {
      c.user.diets = ["vegan"]
      for i in c.items.indices where g.nextInt(below: 3) > 0 { c.items[i].diets = ["vegan"] }
    }
    if g.nextInt(below: 5) == 0 { c.user.dislikedCategories = ["c"] }
    if g.nextInt(below: 3) == 0 { c.rules.reshowDays = 4 }
    // Drop the rules DeckBuilder refuses, one at a time.
    while true {
      do {
        _ = try DeckBuilder(catalog: try Catalog(items: c.items), rules: c.rules)
        return c
      } catch {
        guard case .invalidRestaurantRule(let rule, _, _) = error else { throw error }
        c.rules.restaurantRules.remove(at: rule)
      }
    }
  }

  private static func trace(_ c: RuleCase, _ rules: DeckRules? = nil, user: UserProfile? = nil)
    throws -> Traced
  {
    var history: UserHistory?
    if !c.history.isEmpty {
      var b = HistoryBuilder(itemCount: c.items.count, cutoff: c.date)
      let slot = b.userSlot(c.user.id)
      for (item, swipe, ago) in c.history {
        b.add(user: slot, item: item, swipe: swipe, day: c.date.adding(days: -ago).daysSinceEpoch)
      }
      history = try b.build().users[c.user.id]
    }
    return try Traced(
      c.items, rules ?? c.rules, user: user ?? c.user, history: history, date: c.date,
      score: { c.scores[c.items.firstIndex(of: $0)!] })
  }

  @Test("50,000 random cases: the traced deck is assemble's, and the trace is consistent")
  func differential() throws {
    var g = RandomStream(seed: 2929)
    var seen = [String: Int]()
    for _ in 0..<50_000 {
      let c = try Self.randomCase(&g)
      let t = try Self.trace(c)
      let deck = t.builder.assemble(
        user: c.user.id, date: c.date, candidates: t.set, scores: t.scores)
      #expect(t.trace.deck == deck)
      #expect(t.trace.cards.map(\.item) == deck.cards.map(\.item))
      #expect(t.trace.cards.map(\.position) == deck.cards.indices.map { $0 + 1 })
      for card in t.trace.cards {
        let k = t.set.items.firstIndex(of: card.item)!
        #expect(card.strategyScore == t.scores[k])
        // Its rank: one plus the candidates before it in the strategy's order.
        let above = t.set.items.indices.filter { j in
          t.scores[j] > t.scores[k] || (t.scores[j] == t.scores[k] && j < k)
        }.count
        #expect(card.rankBeforeRules == above + 1)
        for d in card.displaced {
          #expect(d.rankBeforeRules < card.rankBeforeRules && d.rankBeforeRules <= c.rules.size)
          #expect(d.position.map { $0 > card.position } ?? true)
          for r in d.reasons { seen[Self.kind(r.rule), default: 0] += 1 }
          if d.reasons.isEmpty { seen["outranked", default: 0] += 1 }
        }
        for r in card.reasons { seen[Self.kind(r.rule), default: 0] += 1 }
      }
      for h in t.trace.heldBack {
        seen["\(h.reason)".prefix { $0 != "(" }.description, default: 0] += 1
      }
    }
    // The generator reaches every kind of reason.
    for kind in [
      "pinned", "boosted", "buried", "pinned_at", "recentlyShown", "categoryCap", "spacing",
      "outranked", "diet", "allergen", "dislikedCategory", "recentlyPicked", "cooldown", "hidden",
    ] {
      #expect(seen[kind, default: 0] > 50, "\(kind): \(seen[kind, default: 0])")
    }
  }

  private static func kind(_ rule: TraceReason.Rule) -> String {
    switch rule {
    case .pinned: return "pinned"
    case .restaurant(let a):
      switch a.effect {
      case .boosted: return "boosted"
      case .buried: return "buried"
      case .pinned: return "pinned_at"
      case .hidden: return "hidden_on_card"
      }
    case .recentlyShown: return "recentlyShown"
    case .categoryCap: return "categoryCap"
    case .spacing: return "spacing"
    }
  }

  /// Every rule listed on a dish (a card or a dish a card displaced) changed the deck: the deck
  /// that DeckBuilder builds with that rule removed from the deck rules (the dish unpinned, the
  /// restaurant rule deleted, reshowDays 0, no category cap, no spacing) has other cards (items,
  /// scores or pinned flags, in order) or the dish at another place. For the ordering rules and
  /// the boosts and burials, which leave the candidates as they are, the dish's place there is
  /// the trace's `without`, and differs from its place in the deck (boosts and burials: or its
  /// score does). Every dish held back for a reason is no longer held back for it when the
  /// reason's value is removed (the diner's diet, allergen or disliked category, the repeat or
  /// cooldown window, the hide rule), and a swipe's date is the diner's last swipe of that
  /// direction on the dish.
  @Test("20,000 random cases: every rule listed on a card or a displaced dish changed the deck")
  func everyReasonActed() throws {
    var g = RandomStream(seed: 2930)
    for _ in 0..<20_000 {
      let c = try Self.randomCase(&g)
      let t = try Self.trace(c)
      let place = { (deck: Deck, item: Int32) in
        deck.cards.firstIndex { $0.item == item }.map { $0 + 1 }
      }
      for card in t.trace.cards {
        let dishes =
          [(card.item, card.position as Int?, card.reasons)]
          + card.displaced.map { ($0.item, $0.position, $0.reasons) }
        for (item, at, reasons) in dishes {
          for reason in reasons {
            var rules = c.rules
            var exact = true
            switch reason.rule {
            case .pinned:
              rules.pinned.removeAll { $0 == c.items[Int(item)].id }
              exact = false
            case .restaurant(let a):
              rules.restaurantRules.remove(at: a.rule)
              if case .pinned = a.effect { exact = false }
            case .recentlyShown: rules.reshowDays = 0
            case .categoryCap: rules.maxPerCategory = nil
            case .spacing: rules.avoidAdjacentCategory = false
            }
            let other = try Self.trace(c, rules).trace.deck
            let moved = place(other, item) != at
            #expect(moved || other.cards != t.trace.deck.cards, "\(reason) on \(item)")
            if exact {
              #expect(place(other, item) == reason.without, "\(reason) on \(item)")
              if case .restaurant = reason.rule {
                #expect(
                  moved
                    || other.cards.first { $0.item == item }?.score
                      != t.trace.deck.cards.first { $0.item == item }?.score
                )
              } else {
                #expect(moved, "\(reason) on \(item)")
              }
            }
          }
        }
      }
      try Self.checkHeldBack(c, t)
    }
  }

  private static func checkHeldBack(_ c: RuleCase, _ t: Traced) throws {
    for h in t.trace.heldBack {
      var rules = c.rules
      var user = c.user
      switch h.reason {
      case .diet(let d):
        #expect(!c.items[Int(h.item)].diets.contains(d) && c.user.diets.contains(d))
        user.diets.removeAll { $0 == d }
      case .allergen(let a):
        #expect(c.items[Int(h.item)].allergens.contains(a) && c.user.allergens.contains(a))
        user.allergens.removeAll { $0 == a }
      case .dislikedCategory(let cat):
        #expect(c.items[Int(h.item)].category == cat)
        user.dislikedCategories.removeAll { $0 == cat }
      case .recentlyPicked(let day), .cooldown(let day):
        let right = if case .recentlyPicked = h.reason { true } else { false }
        let last = c.history.filter { $0.0 == h.item && ($0.1 == .right) == right }
          .map { c.date.adding(days: -$0.2) }.max()
        #expect(last == day)
        if right { rules.repeatPickDays = 0 } else { rules.cooldownDays = 0 }
      case .hidden(let r):
        #expect(c.rules.restaurantRules[r].action == .hide)
        rules.restaurantRules.remove(at: r)
      }
      let other = try Self.trace(c, rules, user: user)
      let now = other.trace.heldBack.first { $0.item == h.item }?.reason
      if case .hidden(let r) = h.reason, case .hidden(let s)? = now {
        // Another hide rule in force holds it back: a later one (the first one records it).
        #expect((s >= r ? s + 1 : s) > r)
      } else {
        #expect(now != h.reason)
      }
    }
  }
}
