import Testing

@testable import DeckCore

@Suite("DeckBuilder: selection and arrangement")
struct DeckBuilderArrangementTests {
  @Test("category cap: at most N per category, the rest in key order")
  func categoryCap() throws {
    let items = Fixture.items("a1", "a2", "a3", "a4", "b1", "b2", "c1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 5
        $0.maxPerCategory = 2
      })
    #expect(r.ids.filter { $0.hasPrefix("a") }.count == 2)
    #expect(Set(r.ids) == ["a1", "a2", "b1", "b2", "c1"])
    #expect(r.ids == ["a1", "b1", "a2", "b2", "c1"])
    #expect(r.deck.shortfall == nil)
  }

  @Test("cap of 1 with a short deck counts the capped items")
  func capShortfall() throws {
    let items = Fixture.items("a1", "a2", "a3", "b1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 4
        $0.maxPerCategory = 1
      })
    #expect(r.ids == ["a1", "b1"])
    let s = try #require(r.deck.shortfall)
    #expect(s.cards == 2)
    #expect(s.size == 4)
    #expect(s.cappedByCategory == 2)
    #expect(s.description == "deck has 2 of 4 cards (held back: 2 by category cap)")
  }

  @Test("no two adjacent cards of one category, staying close to key order")
  func noAdjacent() throws {
    let items = Fixture.items("a1", "a2", "a3", "b1", "b2", "c1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 6
        $0.maxPerCategory = nil
      })
    #expect(r.ids == ["a1", "b1", "a2", "b2", "a3", "c1"])
  }

  @Test("without avoidAdjacentCategory the deck is in key order")
  func adjacencyOff() throws {
    let items = Fixture.items("a1", "a2", "a3", "b1", "b2", "c1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 6
        $0.maxPerCategory = nil
        $0.avoidAdjacentCategory = false
      })
    #expect(r.ids == ["a1", "a2", "a3", "b1", "b2", "c1"])
  }

  @Test("avoidable by choosing another card: a lower-scored card of another category comes in")
  func avoidableBySelection() throws {
    let items = Fixture.items("a1", "a2", "a3", "b1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 3
        $0.maxPerCategory = nil
      })
    #expect(r.ids == ["a1", "b1", "a2"])
  }

  @Test("one category only: graceful, key order, full deck")
  func oneCategory() throws {
    let items = Fixture.items("a1", "a2", "a3", "a4")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 3
        $0.maxPerCategory = nil
      })
    #expect(r.ids == ["a1", "a2", "a3"])
    #expect(r.deck.shortfall == nil)
  }

  @Test("not avoidable: as few neighbours alike as possible, deck still full")
  func notAvoidable() throws {
    let items = Fixture.items("a1", "a2", "a3", "a4", "b1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 5
        $0.maxPerCategory = nil
      })
    #expect(r.ids == ["a1", "b1", "a2", "a3", "a4"])
  }

  @Test("the first card after the pins differs from the last pin when avoidable")
  func afterPins() throws {
    let items = Fixture.items("a1", "a2", "b1", "b2", "c1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 4
        $0.maxPerCategory = nil
        $0.pinned = ["a2"]
      })
    #expect(r.ids == ["a2", "b1", "a1", "b2"])
    #expect(r.deck.cards[0].pinned)
    #expect(!r.deck.cards[1].pinned)
  }

  @Test("NaN scores sort after every number, -infinity included; ties by catalog order")
  func nanAndTies() throws {
    let items = Fixture.items("a1", "b1", "c1", "d1", "e1", "f1")
    let r = try Fixture.deck(
      items, rules: Fixture.rules { $0.size = 6 },
      scores: ["a1": .nan, "b1": 1, "c1": -.infinity, "d1": 1, "e1": .nan, "f1": 2])
    #expect(r.ids == ["f1", "b1", "d1", "c1", "a1", "e1"])
    #expect(r.deck.cards[4].score.isNaN)
  }

  @Test("scores order like numbers across signs, subnormals and infinities; -0.0 ties with 0.0")
  func scoreOrder() throws {
    let items = Fixture.items("a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "i1")
    let r = try Fixture.deck(
      items, rules: Fixture.rules { $0.size = 9 },
      scores: [
        "a1": -1e308, "b1": -5e-324, "c1": 0.0, "d1": -0.0, "e1": 5e-324, "f1": 1, "g1": .infinity,
        "h1": -.infinity, "i1": .nan,
      ])
    #expect(r.ids == ["g1", "f1", "e1", "c1", "d1", "b1", "a1", "h1", "i1"])
  }

  @Test("equal scores keep catalog order")
  func allTies() throws {
    let items = Fixture.items("c1", "a1", "b1", "d1")
    let r = try Fixture.deck(
      items, rules: Fixture.rules { $0.size = 4 }, scores: ["c1": 0, "a1": 0, "b1": 0, "d1": 0])
    #expect(r.ids == ["c1", "a1", "b1", "d1"])
  }

  @Test("scores and propensities are carried onto the cards")
  func cardsCarryScores() throws {
    let catalog = try Catalog(items: Fixture.items("a1", "b1"))
    let builder = try DeckBuilder(catalog: catalog, rules: Fixture.rules { $0.size = 2 })
    let c = builder.candidates(for: UserProfile(id: "u"), history: nil, date: Fixture.date)
    let deck = builder.assemble(
      user: "u", date: Fixture.date, candidates: c, scores: [0.25, 0.75], propensities: [0.4, 0.6])
    #expect(
      deck.cards == [
        Card(item: 1, score: 0.75, propensity: 0.6), Card(item: 0, score: 0.25, propensity: 0.4),
      ])
    #expect(deck.user == "u")
    #expect(deck.date == Fixture.date)
  }

  @Test("prefix propensities are carried onto the cards with the candidate they belong to")
  func cardsCarryPrefixPropensities() throws {
    let catalog = try Catalog(items: Fixture.items("a1", "b1", "c1"))
    let builder = try DeckBuilder(catalog: catalog, rules: Fixture.rules { $0.size = 2 })
    let c = builder.candidates(for: UserProfile(id: "u"), history: nil, date: Fixture.date)
    let deck = builder.assemble(
      user: "u", date: Fixture.date, candidates: c, scores: [0.25, 0.75, 0.5],
      propensities: [0.2, 0.5, 0.3], prefixPropensities: [0.01, 0.5, 0.15])
    #expect(
      deck.cards == [
        Card(item: 1, score: 0.75, propensity: 0.5, prefixPropensity: 0.5),
        Card(item: 2, score: 0.5, propensity: 0.3, prefixPropensity: 0.15),
      ])
    // Without them, none.
    let plain = builder.assemble(
      user: "u", date: Fixture.date, candidates: c, scores: [0.25, 0.75, 0.5],
      propensities: [0.2, 0.5, 0.3])
    #expect(plain.cards.allSatisfy { $0.prefixPropensity == nil && $0.propensity != nil })
  }

  /// Exhaustive check on small random instances: whenever some selection of the deck size
  /// (under the cap) can be ordered with no two neighbours alike, the deck has none; the deck is
  /// as long as the cap allows; the top candidate is among the first two cards.
  @Test("property: adjacency avoided whenever any full deck could avoid it")
  func adjacencyProperty() throws {
    var rng = RandomStream(seed: 77)
    for round in 0..<300 {
      let n = 1 + rng.nextInt(below: 8)
      let categories = 1 + rng.nextInt(below: 3)
      let items = (0..<n).map { i in
        Fixture.item("i\(i)", String(UnicodeScalar(UInt8(97 + rng.nextInt(below: categories)))))
      }
      let size = 1 + rng.nextInt(below: 6)
      let cap: Int? = rng.nextInt(below: 2) == 0 ? nil : 1 + rng.nextInt(below: 3)
      var scores: [String: Double] = [:]
      for it in items { scores[it.id] = Double(rng.nextInt(below: 4)) }
      let r = try Fixture.deck(
        items,
        rules: Fixture.rules {
          $0.size = size
          $0.maxPerCategory = cap
        }, scores: scores)
      let cats = r.ids.map { id in items.first { $0.id == id }!.category }

      var available: [String: Int] = [:]
      for it in items { available[it.category, default: 0] += 1 }
      let allowed = available.mapValues { min($0, cap ?? .max) }
      let expectedCount = min(size, allowed.values.reduce(0, +))
      #expect(r.ids.count == expectedCount, "round \(round)")
      #expect(Set(r.ids).count == r.ids.count)

      let adjacent = zip(cats, cats.dropFirst()).contains { $0 == $1 }
      if adjacent {
        #expect(
          !someFullDeckAvoids(allowed: allowed, length: expectedCount), "round \(round): \(r.ids)")
      }
      let top = items.max { a, b in
        scores[a.id]! != scores[b.id]! ? scores[a.id]! < scores[b.id]! : a.id > b.id
      }!
      // The top candidate is always in (it may move back one place to keep neighbours apart).
      #expect(r.ids.prefix(2).contains(top.id), "round \(round): \(r.ids)")
    }
  }

  /// Backtracking: can `length` cards drawn from `allowed` (count per category) be laid out with
  /// no two neighbours alike?
  private func someFullDeckAvoids(allowed: [String: Int], length: Int) -> Bool {
    var left = allowed
    func place(_ remaining: Int, after previous: String?) -> Bool {
      if remaining == 0 { return true }
      for c in left.keys.sorted() where c != previous && left[c]! > 0 {
        left[c]! -= 1
        let ok = place(remaining - 1, after: c)
        left[c]! += 1
        if ok { return true }
      }
      return false
    }
    return place(length, after: nil)
  }
}

@Suite("DeckBuilder: pins and exclusions")
struct DeckBuilderPinTests {
  @Test("pinned items come first in pin order, even with low scores")
  func pinOrder() throws {
    let items = Fixture.items("a1", "b1", "c1", "d1", "e1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 4
        $0.pinned = ["e1", "c1"]
      })
    #expect(r.ids == ["e1", "c1", "a1", "b1"])
    #expect(r.deck.cards.map(\.pinned) == [true, true, false, false])
    #expect(r.deck.skippedPins == [])
  }

  @Test("a pin the diner may not have is skipped and reported")
  func pinSkippedForAllergen() throws {
    let items = [
      Fixture.item("a1", "a"), Fixture.item("b1", "b", allergens: ["egg"]), Fixture.item("c1", "c"),
    ]
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 3
        $0.pinned = ["b1", "c1"]
      },
      user: UserProfile(id: "u", allergens: ["egg"]))
    #expect(r.ids == ["c1", "a1"])
    #expect(r.deck.skippedPins == ["b1"])
    #expect(!r.ids.contains("b1"))
  }

  @Test("a pin unavailable on the date is skipped")
  func pinUnavailable() throws {
    let items = [
      Fixture.item("a1", "a", availability: Availability(weekdays: [.monday])),
      Fixture.item("b1", "b"),
    ]
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 2
        $0.pinned = ["a1"]
      })
    #expect(r.ids == ["b1"])
    #expect(r.deck.skippedPins == ["a1"])
  }

  @Test("more pins than the deck size: the first pins fill it")
  func tooManyPins() throws {
    let items = Fixture.items("a1", "b1", "c1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 2
        $0.pinned = ["c1", "b1", "a1"]
      })
    #expect(r.ids == ["c1", "b1"])
  }

  @Test("pins bypass freshness")
  func pinsBypassFreshness() throws {
    let items = Fixture.items("a1", "b1", "c1")
    let h = try Fixture.history(items, [("c1", .right, 1)])
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 3
        $0.pinned = ["c1"]
      }, history: h)
    #expect(r.ids == ["c1", "a1", "b1"])
  }

  @Test("excluded items never appear and are counted")
  func excluded() throws {
    let items = Fixture.items("a1", "b1", "c1", "d1")
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 4
        $0.excluded = ["a1", "c1"]
      })
    #expect(r.ids == ["b1", "d1"])
    #expect(r.candidates.heldBack[HoldBackReason.excluded.rawValue] == 2)
    #expect(r.deck.shortfall?.description == "deck has 2 of 4 cards (held back: 2 by exclusion)")
  }

  @Test("rules naming unknown items, or an item both pinned and excluded, are rejected")
  func invalidRules() throws {
    let catalog = try Catalog(items: Fixture.items("a1"))
    #expect(throws: DeckCoreError.invalidRules("pinned item 'zz' is not in the catalog")) {
      try DeckBuilder(catalog: catalog, rules: Fixture.rules { $0.pinned = ["zz"] })
    }
    #expect(throws: DeckCoreError.invalidRules("excluded item 'zz' is not in the catalog")) {
      try DeckBuilder(catalog: catalog, rules: Fixture.rules { $0.excluded = ["zz"] })
    }
    #expect(throws: DeckCoreError.invalidRules("item 'a1' is both pinned and excluded")) {
      try DeckBuilder(
        catalog: catalog,
        rules: Fixture.rules {
          $0.pinned = ["a1"]
          $0.excluded = ["a1"]
        })
    }
    #expect(throws: DeckCoreError.invalidRules("size must be at least 1, got 0")) {
      try DeckBuilder(catalog: catalog, rules: Fixture.rules { $0.size = 0 })
    }
    #expect(throws: DeckCoreError.invalidRules("maxPerCategory must be at least 1, got 0")) {
      try DeckBuilder(catalog: catalog, rules: Fixture.rules { $0.maxPerCategory = 0 })
    }
    #expect(throws: DeckCoreError.invalidRules("cooldownDays must be 0 or more, got -1")) {
      try DeckBuilder(catalog: catalog, rules: Fixture.rules { $0.cooldownDays = -1 })
    }
  }
}

@Suite("DeckBuilder: diner filters and availability")
struct DeckBuilderFilterTests {
  @Test("diet: a dish must satisfy every diet of the diner")
  func diet() throws {
    let items = [
      Fixture.item("a1", "a", diets: ["vegetarian"]),
      Fixture.item("b1", "b", diets: ["vegetarian", "vegan"]),
      Fixture.item("c1", "c"),
      Fixture.item("d1", "d", diets: ["vegan"]),
    ]
    let veg = try Fixture.deck(items, user: UserProfile(id: "u", diets: ["vegetarian"]))
    #expect(veg.ids == ["a1", "b1"])
    #expect(veg.candidates.heldBack[HoldBackReason.diet.rawValue] == 2)
    let both = try Fixture.deck(items, user: UserProfile(id: "u", diets: ["vegetarian", "vegan"]))
    #expect(both.ids == ["b1"])
    let unknown = try Fixture.deck(items, user: UserProfile(id: "u", diets: ["halal"]))
    #expect(unknown.ids == [])
    #expect(unknown.deck.shortfall?.description == "deck has 0 of 10 cards (held back: 4 by diet)")
  }

  @Test("allergens: a dish with any of the diner's allergens is held back")
  func allergens() throws {
    let items = [
      Fixture.item("a1", "a", allergens: ["egg", "soy"]),
      Fixture.item("b1", "b", allergens: ["wheat"]),
      Fixture.item("c1", "c"),
    ]
    let r = try Fixture.deck(items, user: UserProfile(id: "u", allergens: ["soy", "peanut"]))
    #expect(r.ids == ["b1", "c1"])
    #expect(r.candidates.heldBack[HoldBackReason.allergen.rawValue] == 1)
    let none = try Fixture.deck(items, user: UserProfile(id: "u", allergens: ["peanut"]))
    #expect(none.ids == ["a1", "b1", "c1"])
  }

  @Test("disliked categories are held back")
  func disliked() throws {
    let items = Fixture.items("a1", "b1", "b2", "c1")
    let r = try Fixture.deck(items, user: UserProfile(id: "u", dislikedCategories: ["b"]))
    #expect(r.ids == ["a1", "c1"])
    #expect(r.candidates.heldBack[HoldBackReason.dislikedCategory.rawValue] == 2)
  }

  @Test("availability by weekday (the deck date 2026-11-29 is a Sunday)")
  func weekdays() throws {
    let items = [
      Fixture.item("sun", "a", availability: Availability(weekdays: [.sunday])),
      Fixture.item("sat", "b", availability: Availability(weekdays: [.saturday])),
      Fixture.item(
        "weekdays", "c",
        availability: Availability(weekdays: [.monday, .tuesday, .wednesday, .thursday, .friday])),
      Fixture.item("any", "d"),
    ]
    #expect(try Fixture.deck(items).ids == ["sun", "any"])
    #expect(try Fixture.deck(items, date: Fixture.date.adding(days: 1)).ids == ["weekdays", "any"])
    #expect(try Fixture.deck(items, date: Fixture.date.adding(days: -1)).ids == ["sat", "any"])
  }

  @Test(
    "availability by date range, inclusive at both ends",
    arguments: [(-1, false), (0, true), (5, true), (10, true), (11, false)])
  func dateRange(offset: Int, available: Bool) throws {
    let start = try #require(DeckDate.parse("2026-12-01"))
    let items = [
      Fixture.item(
        "seasonal", "a", availability: Availability(from: start, until: start.adding(days: 10))),
      Fixture.item("any", "b"),
    ]
    let r = try Fixture.deck(items, date: start.adding(days: offset))
    #expect(r.ids.contains("seasonal") == available)
    #expect(r.candidates.heldBack[HoldBackReason.unavailable.rawValue] == (available ? 0 : 1))
  }

  @Test("weekday and date range must both allow the date")
  func both() throws {
    let from = try #require(DeckDate.parse("2026-11-01"))
    let a = Availability(weekdays: [.sunday], from: from, until: nil)
    #expect(a.allows(Fixture.date))
    #expect(!a.allows(Fixture.date.adding(days: 1)))
    #expect(!a.allows(from.adding(days: -7)))  // a Sunday before the range
  }

  @Test("dayMask passed in gives the same candidates")
  func dayMask() throws {
    let items = [
      Fixture.item("a1", "a", availability: Availability(weekdays: [.monday])),
      Fixture.item("b1", "b"),
    ]
    let builder = try DeckBuilder(
      catalog: Catalog(items: items), rules: Fixture.rules { $0.excluded = ["b1"] })
    let mask = builder.dayMask(for: Fixture.date)
    #expect(mask == [false, false])
    let user = UserProfile(id: "u")
    #expect(
      builder.candidates(for: user, history: nil, date: Fixture.date, dayMask: mask)
        == builder.candidates(for: user, history: nil, date: Fixture.date))
  }

  @Test("shortfall names every reason with its count; only the first reason counts per item")
  func shortfallReasons() throws {
    let items = [
      Fixture.item("a1", "a", allergens: ["egg"], availability: Availability(weekdays: [.monday])),
      Fixture.item("b1", "b", allergens: ["egg"]),
      Fixture.item("c1", "c", diets: ["vegan"]),
      Fixture.item("d1", "d", diets: ["vegan"]),
      Fixture.item("e1", "e", diets: ["vegan"]),
      Fixture.item("x1", "x", diets: ["vegan"]),
    ]
    let h = try Fixture.history(items, [("c1", .right, 2), ("d1", .left, 1)])
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.size = 5
        $0.excluded = ["x1"]
      },
      user: UserProfile(id: "u", diets: ["vegan"], allergens: ["egg"]), history: h)
    #expect(r.ids == ["e1"])
    #expect(r.candidates.heldBack == [1, 1, 1, 0, 0, 1, 1])
    let s = try #require(r.deck.shortfall)
    #expect(
      s.description
        == "deck has 1 of 5 cards (held back: 1 by exclusion, 1 by availability, 1 by diet, 1 by recent pick, 1 by cooldown)"
    )
  }

  @Test("a small catalog with nothing held back says so")
  func smallCatalog() throws {
    let r = try Fixture.deck(Fixture.items("a1", "b1"))
    #expect(
      r.deck.shortfall?.description
        == "deck has 2 of 10 cards (the catalog has only 2 dishes)")
    #expect(r.deck.shortfall?.catalogCount == 2)
  }
}

@Suite("DeckBuilder: freshness")
struct DeckBuilderFreshnessTests {
  let items = Fixture.items("a1", "b1", "c1", "d1")

  @Test(
    "picked within repeatPickDays is held back: day N held, day N+1 back",
    arguments: [(1, true), (5, true), (6, true), (7, false), (30, false)])
  func repeatPick(daysAgo: Int, held: Bool) throws {
    let h = try Fixture.history(items, [("a1", .right, daysAgo)])
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.repeatPickDays = 6
        $0.reshowDays = 0
      }, history: h)
    #expect(r.ids.contains("a1") == !held)
    #expect(r.candidates.heldBack[HoldBackReason.recentlyPicked.rawValue] == (held ? 1 : 0))
  }

  @Test(
    "swiped left within cooldownDays is held back: day N held, day N+1 back",
    arguments: [(1, true), (3, true), (4, false)])
  func cooldown(daysAgo: Int, held: Bool) throws {
    let h = try Fixture.history(items, [("b1", .left, daysAgo)])
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.cooldownDays = 3
        $0.reshowDays = 0
      }, history: h)
    #expect(r.ids.contains("b1") == !held)
    #expect(r.candidates.heldBack[HoldBackReason.cooldown.rawValue] == (held ? 1 : 0))
  }

  @Test(
    "shown within reshowDays goes behind unseen items: day N behind, day N+1 in score order",
    arguments: [(1, true), (2, true), (3, false)])
  func reshow(daysAgo: Int, behind: Bool) throws {
    // a1 was picked long ago: outside repeatPickDays, but it counts as shown.
    let h = try Fixture.history(items, [("a1", .right, daysAgo + 0)])
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.repeatPickDays = 0
        $0.cooldownDays = 0
        $0.reshowDays = 2
        $0.maxPerCategory = nil
      },
      history: h)
    #expect(r.ids == (behind ? ["b1", "c1", "d1", "a1"] : ["a1", "b1", "c1", "d1"]))
    #expect(
      r.candidates.recentlyShown
        == (behind ? [true, false, false, false] : [false, false, false, false]))
  }

  @Test("recently shown goes behind even a NaN-scored unseen item")
  func reshowBeforeScore() throws {
    let h = try Fixture.history(items, [("a1", .left, 1)])
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.cooldownDays = 0
        $0.size = 4
      }, history: h,
      scores: ["a1": 100, "b1": .nan, "c1": 1, "d1": 2])
    #expect(r.ids == ["d1", "c1", "b1", "a1"])
  }

  @Test("the most recent swipe of each kind counts")
  func lastSwipe() throws {
    // Picked 10 days ago (outside 6) and swiped left 2 days ago (inside 3): cooldown.
    let h = try Fixture.history(items, [("a1", .right, 10), ("a1", .left, 2), ("a1", .left, 20)])
    let r = try Fixture.deck(items, history: h)
    #expect(!r.ids.contains("a1"))
    #expect(r.candidates.heldBack[HoldBackReason.cooldown.rawValue] == 1)
    #expect(r.candidates.heldBack[HoldBackReason.recentlyPicked.rawValue] == 0)
  }

  @Test("zero days turns each freshness rule off")
  func zeroIsOff() throws {
    let h = try Fixture.history(items, [("a1", .right, 1), ("b1", .left, 1)])
    let r = try Fixture.deck(
      items,
      rules: Fixture.rules {
        $0.repeatPickDays = 0
        $0.cooldownDays = 0
        $0.reshowDays = 0
      }, history: h)
    #expect(r.ids == ["a1", "b1", "c1", "d1"])
  }

  @Test("swipes on the deck date itself do not hold items back")
  func sameDay() throws {
    let catalog = try Catalog(items: items)
    var b = HistoryBuilder(itemCount: catalog.count)  // no cutoff
    let u = b.userSlot("u")
    b.add(user: u, item: 0, swipe: .right, day: Fixture.date.daysSinceEpoch)
    let r = try Fixture.deck(items, history: b.build().users["u"])
    #expect(r.ids.contains("a1"))
    #expect(r.candidates.recentlyShown == [false, false, false, false])
  }
}

@Suite("DeckBuilder: the deck order for any scores")
struct DeckOrderTests {
  static let items = Fixture.items("a1", "a2", "a3", "b1", "b2", "c1", "c2", "d1")

  /// `deckOrder` is where `assemble` puts the candidates, for random scores under several rule
  /// sets, pins and recently shown dishes included.
  @Test("deckOrder is assemble's order of the candidates")
  func sameAsAssemble() throws {
    let catalog = try Catalog(items: Self.items)
    let history = try Fixture.history(Self.items, [("b1", .left, 1), ("c2", .left, 1)])
    var random = RandomStream(seed: 11)
    for (size, cap, spread, pins) in [
      (4, 3, true, [String]()), (5, 1, true, []), (6, nil, false, ["c1"]), (3, 2, false, []),
      (8, 2, true, ["d1", "a2"]),
    ] as [(Int, Int?, Bool, [String])] {
      let rules = Fixture.rules {
        $0.size = size
        $0.maxPerCategory = cap
        $0.avoidAdjacentCategory = spread
        $0.pinned = pins
        $0.cooldownDays = 0
      }
      let builder = try DeckBuilder(catalog: catalog, rules: rules)
      let candidates = builder.candidates(
        for: UserProfile(id: "u"), history: history, date: Fixture.date)
      for _ in 0..<50 {
        let scores = candidates.items.map { _ in random.nextDouble() }
        let deck = builder.assemble(
          user: "u", date: Fixture.date, candidates: candidates, scores: scores)
        #expect(
          builder.deckOrder(candidates: candidates, scores: scores).map { candidates.items[$0] }
            == deck.cards.map(\.item))
      }
    }
  }

  /// The key order `assemble` takes candidates in for these scores: not recently shown first,
  /// then score (descending), then catalog order.
  static func keyOrder(_ candidates: CandidateSet, _ scores: [Double]) -> [Int] {
    candidates.items.indices.sorted { a, b in
      if candidates.recentlyShown[a] != candidates.recentlyShown[b] {
        return !candidates.recentlyShown[a]
      }
      return scores[a] != scores[b]
        ? scores[a] > scores[b] : candidates.items[a] < candidates.items[b]
    }
  }

  /// A stochastic strategy deals its ranking to the deck lazily: the deck from the candidates
  /// in key order, pulled one at a time, is the deck from the scores, under the same rule sets
  /// (pins, a recently shown dish, caps that skip and spreading that defers cards), with ties;
  /// and it pulls no candidate after the deck is full.
  @Test("deckOrder(keyOrder:) is deckOrder(scores:), pulling only as far as the deck needs")
  func lazyKeyOrder() throws {
    let catalog = try Catalog(items: Self.items)
    let history = try Fixture.history(Self.items, [("b1", .left, 1), ("c2", .left, 1)])
    var random = RandomStream(seed: 13)
    for (size, cap, spread, pins) in [
      (4, 3, true, [String]()), (5, 1, true, []), (6, nil, false, ["c1"]), (3, 2, false, []),
      (8, 2, true, ["d1", "a2"]), (7, 3, true, []), (2, nil, false, ["a1", "b2", "c1"]),
    ] as [(Int, Int?, Bool, [String])] {
      let rules = Fixture.rules {
        $0.size = size
        $0.maxPerCategory = cap
        $0.avoidAdjacentCategory = spread
        $0.pinned = pins
        $0.cooldownDays = 0
      }
      let builder = try DeckBuilder(catalog: catalog, rules: rules)
      let candidates = builder.candidates(
        for: UserProfile(id: "u"), history: history, date: Fixture.date)
      #expect(candidates.recentlyShown.contains(true))
      for round in 0..<60 {
        // Every third round, scores on a coarse grid, so that ties go by catalog order.
        let scores = candidates.items.map { _ in
          round % 3 == 0 ? Double(random.nextInt(below: 3)) : random.nextDouble()
        }
        let keys = Self.keyOrder(candidates, scores)
        // With and without the pins in the lazy order: the deck places them first either way.
        let pinned = Set(candidates.pinned)
        for source in [keys, keys.filter { !pinned.contains(candidates.items[$0]) }] {
          var pulled = 0
          let lazy = builder.deckOrder(candidates: candidates) {
            defer { pulled += 1 }
            return pulled < source.count ? source[pulled] : nil
          }
          let want = builder.deckOrder(candidates: candidates, scores: scores)
          #expect(lazy == want, "size \(size), cap \(String(describing: cap)), round \(round)")
          // The last candidate pulled was needed: pulling one fewer changes the deck (or the
          // source ran dry).
          if pulled <= source.count {
            let shorter = Array(source.prefix(max(0, pulled - 1)))
            var k = 0
            let cut = builder.deckOrder(candidates: candidates) {
              defer { k += 1 }
              return k < shorter.count ? shorter[k] : nil
            }
            if pulled > 0 && want.count > candidates.pinned.count { #expect(cut != want) }
          }
        }
      }
    }
  }

  @Test("keepsScoreOrder only when no rule can move a card, and then the deck is the top scores")
  func keepsScoreOrder() throws {
    let catalog = try Catalog(items: Self.items)
    let plain = Fixture.rules {
      $0.size = 4
      $0.maxPerCategory = 4
      $0.avoidAdjacentCategory = false
      $0.cooldownDays = 0  // so that a dish swiped left yesterday is shown again, behind the rest
    }
    let builder = try DeckBuilder(catalog: catalog, rules: plain)
    let fresh = builder.candidates(for: UserProfile(id: "u"), history: nil, date: Fixture.date)
    #expect(builder.keepsScoreOrder(fresh))
    var random = RandomStream(seed: 12)
    for _ in 0..<50 {
      let scores = fresh.items.map { _ in random.nextDouble() }
      let top = fresh.items.indices.sorted { scores[$0] > scores[$1] }.prefix(4)
      #expect(builder.deckOrder(candidates: fresh, scores: scores) == Array(top))
    }
    // A recently shown dish, a cap below the size, spreading, a pin: each can move cards.
    let shown = try Fixture.history(Self.items, [("a1", .left, 1)])
    let recent = builder.candidates(for: UserProfile(id: "u"), history: shown, date: Fixture.date)
    #expect(recent.recentlyShown.contains(true))
    #expect(!builder.keepsScoreOrder(recent))
    for change in [
      { (r: inout DeckRules) in r.maxPerCategory = 3 }, { $0.avoidAdjacentCategory = true },
      { $0.pinned = ["b2"] },
    ] as [(inout DeckRules) -> Void] {
      var rules = plain
      change(&rules)
      let other = try DeckBuilder(catalog: catalog, rules: rules)
      let set = other.candidates(for: UserProfile(id: "u"), history: nil, date: Fixture.date)
      #expect(!other.keepsScoreOrder(set))
    }
  }
}
