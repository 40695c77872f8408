import Testing

@testable import DeckCore

/// `candidates(for:history:day:)` hands every diner nothing holds back the day's one candidate
/// set; it must be what the general path (`candidates(for:history:date:dayMask:)`) makes for
/// each of them, and the general path must be taken for everyone else.
@Suite struct DeckDayTests {
  static let items = [
    Fixture.item("a1", "a", allergens: ["egg"]),
    Fixture.item("a2", "a", diets: ["vegetarian"]),
    Fixture.item("b1", "b", availability: Availability(from: Fixture.date.adding(days: 1))),
    Fixture.item("b2", "b", diets: ["vegetarian"]),
    Fixture.item("c1", "c", allergens: ["soy"]),
    Fixture.item("c2", "c", availability: Availability(until: Fixture.date.adding(days: -1))),
    Fixture.item("d1", "d"),
  ]

  @Test func theDaysSharedCandidatesAreTheGeneralPaths() throws {
    let catalog = try Catalog(items: Self.items)
    let swiped = try Fixture.history(Self.items, [("a1", .right, 1), ("d1", .left, 2)])
    let users = [
      UserProfile(id: "plain"), UserProfile(id: "veg", diets: ["vegetarian"]),
      UserProfile(id: "egg", allergens: ["egg"]),
      UserProfile(id: "no-c", dislikedCategories: ["c"]),
    ]
    let ruleSets: [DeckRules] = [
      Fixture.rules(),
      Fixture.rules { $0.pinned = ["d1", "b1", "a2"] },
      Fixture.rules { $0.excluded = ["a2"] },
      Fixture.rules {
        $0.pinned = ["c1"]
        $0.excluded = ["d1"]
        $0.reshowDays = 5
      },
      Fixture.rules {
        $0.restaurantRules = [RestaurantRule(.hide, .dish("a2"), diners: ["plain"])]
      },
    ]
    var shared = 0
    for rules in ruleSets {
      let builder = try DeckBuilder(catalog: catalog, rules: rules)
      for offset in [-2, 0, 3] {
        let date = Fixture.date.adding(days: offset)
        let day = builder.day(date)
        #expect(day.mask == builder.dayMask(for: date))
        #expect((day.unconstrained == nil) == !rules.restaurantRules.isEmpty)
        for user in users {
          for history in [nil, swiped] {
            let general = builder.candidates(
              for: user, history: history, date: date, dayMask: day.mask)
            let fast = builder.candidates(for: user, history: history, day: day)
            #expect(fast == general, "\(user.id), \(rules), \(date)")
            if let base = day.unconstrained, fast == base { shared += 1 }
          }
        }
      }
    }
    // The shared set was taken (and checked) for the plain diner without swipes.
    #expect(shared >= 12)
  }
}
