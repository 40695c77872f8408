import DeckCore
import Dispatch
import Foundation
import Testing

@testable import DeckStrategies

/// A small random world: dishes with categories, tags and a diet; diners with diets,
/// allergens and dislikes; swipes over `days` days.
private struct World {
  var catalog: Catalog
  var profiles: [UserProfile]
  var events: [(user: String, item: Int32, right: Bool, day: Int32)]

  init(seed: UInt64, dishes: Int = 7, diners: Int = 12, swipes: Int = 90, days: Int32 = 5) {
    var random = RandomStream(seed: seed)
    let categories = ["noodles", "rice", "fried"]
    let tags = ["spicy", "cold", "sweet"]
    var items: [MenuItem] = []
    for k in 0..<dishes {
      let tag = tags[Int(random.next() % 3)]
      items.append(
        MenuItem(
          id: "d\(k)", name: "d\(k)", category: categories[Int(random.next() % 3)],
          tags: k % 2 == 0 ? [tag] : [], price: Double(5 + random.next() % 20),
          diets: k % 3 == 0 ? ["vegan"] : []))
    }
    catalog = try! Catalog(items: items)
    profiles = (0..<diners).map { k in
      UserProfile(
        id: "u\(k)", diets: k % 4 == 0 ? ["vegan"] : [], allergens: k % 3 == 1 ? ["egg"] : [],
        dislikedCategories: k % 5 == 2 ? ["fried"] : [])
    }
    events = (0..<swipes).map { _ in
      // The last dish is never swiped: a cold-start dish.
      let item = Int32(random.next() % UInt64(dishes - 1))
      let user = "u\(random.next() % UInt64(diners))"
      return (
        user, item, random.nextDouble() < 0.4 + 0.1 * Double(item % 3),
        1 + Int32(random.next() % UInt64(days))
      )
    }
  }

  /// The history of the swipes on days up to `last` (all by default).
  func history(upTo last: Int32 = .max, from first: Int32 = .min) throws -> History {
    var builder = HistoryBuilder(itemCount: catalog.count)
    for e in events where e.day <= last && e.day >= first {
      builder.add(
        user: builder.userSlot(e.user), item: e.item, swipe: e.right ? .right : .left, day: e.day)
    }
    return try builder.build()
  }

  var byID: [IDKey: UserProfile] {
    var out: [IDKey: UserProfile] = [:]
    for p in profiles { out[IDKey(p.id)] = p }
    return out
  }
}

/// The hybrid model solved the straightforward way: one dense ridge system over the joint
/// parameter (beta over every cross, then theta_a per dish), from each swipe's
/// phi = (z, 0, ..., x at dish a, ..., 0).
private struct DenseJoint {
  let n: Int
  let p: Int
  let d: Int
  let solution: [Double]
  let inverse: [Double]

  init(_ world: World, _ history: History, encoding: FeatureEncoding, lambda: Double) {
    p = encoding.dishCount
    d = encoding.dinerCount
    let k = p * d
    n = k + world.catalog.count * d
    var a = [Double](repeating: 0, count: n * n)
    var b = [Double](repeating: 0, count: n)
    for i in 0..<n { a[i * n + i] = lambda }
    for profile in world.profiles {
      guard let user = history.users[profile.id] else { continue }
      for record in user.records {
        let phi = Self.phi(encoding, profile, Int(record.item), n: n)
        for i in phi.indices where phi[i] != 0 {
          b[i] += Double(record.right) * phi[i]
          for j in phi.indices where phi[j] != 0 {
            a[i * n + j] += Double(record.shown) * phi[i] * phi[j]
          }
        }
      }
    }
    let factor = Dense.cholesky(a, n)!
    inverse = Dense.inverse(factor: factor, n)
    solution = Dense.solve(factor: factor, b, n)
  }

  static func phi(_ encoding: FeatureEncoding, _ profile: UserProfile, _ item: Int, n: Int)
    -> [Double]
  {
    let d = encoding.dinerCount
    let k = encoding.dishCount * d
    var phi = [Double](repeating: 0, count: n)
    let x = encoding.diner(profile)
    for f in encoding.itemFeatures[item] { for g in x { phi[Int(f) * d + Int(g)] = 1 } }
    for g in x { phi[k + item * d + Int(g)] = 1 }
    return phi
  }

  func variance(_ phi: [Double]) -> Double {
    var s = 0.0
    for i in 0..<n where phi[i] != 0 {
      for j in 0..<n where phi[j] != 0 { s += phi[i] * inverse[i * n + j] * phi[j] }
    }
    return s
  }
}

@Suite struct LinUCBTests {
  @Test(arguments: [1 as UInt64, 2, 3])
  func hybridFitSolvesTheJointNormalEquations(seed: UInt64) throws {
    let world = World(seed: seed)
    let history = try world.history()
    let encoding = FeatureEncoding(catalog: world.catalog, profiles: world.profiles)
    for lambda in [1.0, 0.3] {
      let model = try LinearBanditModel(
        kind: .hybrid, lambda: lambda, encoding: encoding, history: history,
        profiles: world.byID, factors: true)
      let dense = DenseJoint(world, history, encoding: encoding, lambda: lambda)
      let d = encoding.dinerCount
      // beta: the active crosses as solved, the others 0.
      for cross in 0..<(encoding.dishCount * d) {
        let c = model.active[cross]
        let mine = c >= 0 ? model.beta[Int(c)] : 0
        #expect(abs(mine - dense.solution[cross]) < 1e-9, "beta[\(cross)]")
      }
      for profile in world.profiles {
        let x = encoding.diner(profile)
        for item in 0..<world.catalog.count {
          let prediction = model.predict(x: x, item: item)
          let phi = DenseJoint.phi(encoding, profile, item, n: dense.n)
          let mean = zip(phi, dense.solution).reduce(0) { $0 + $1.0 * $1.1 }
          #expect(abs(prediction.mean - mean) < 1e-9, "mean of \(profile.id), d\(item)")
          #expect(
            abs(prediction.variance - dense.variance(phi)) < 1e-9,
            "variance of \(profile.id), d\(item)")
          #expect(abs(prediction.parts.reduce(0) { $0 + $1.value } - prediction.mean) < 1e-12)
        }
      }
    }
  }

  /// Model `personal`: the hybrid as model `hybrid` fits it, then per diner a ridge regression
  /// over every dish feature of the diner's swipes less the hybrid's means, solved densely here:
  /// means and variances (the hybrid's plus u' A_u^-1 u) within 1e-9.
  @Test(arguments: [1 as UInt64, 2])
  func personalFitIsTheHybridThenARidgePerDinerOnWhatItLeaves(seed: UInt64) throws {
    let world = World(seed: seed)
    let history = try world.history()
    let encoding = FeatureEncoding(catalog: world.catalog, profiles: world.profiles)
    let p = encoding.dishCount
    for lambda in [1.0, 30] {
      let model = try LinearBanditModel(
        kind: .personal, lambda: lambda, encoding: encoding, history: history,
        profiles: world.byID, factors: true)
      let hybrid = try LinearBanditModel(
        kind: .hybrid, lambda: lambda, encoding: encoding, history: history,
        profiles: world.byID, factors: true)
      var tested = 0
      for profile in world.profiles {
        let x = encoding.diner(profile)
        let user = history.users[profile.id]
        var a = [Double](repeating: 0, count: p * p)
        var b = [Double](repeating: 0, count: p)
        for f in 0..<p { a[f * p + f] = lambda }
        for record in user?.records ?? [] where record.shown > 0 {
          let mean = hybrid.predict(x: x, item: Int(record.item)).mean
          let u = encoding.itemFeatures[Int(record.item)].map(Int.init)
          for i in u {
            b[i] += Double(record.right) - Double(record.shown) * mean
            for j in u { a[i * p + j] += Double(record.shown) }
          }
        }
        let l = Dense.cholesky(a, p)!
        let phi = Dense.solve(factor: l, b, p)
        let view = model.dinerView(id: profile.id, history: user)
        for item in 0..<world.catalog.count {
          let u = (0..<p).map { f in encoding.itemFeatures[item].contains(Int32(f)) ? 1.0 : 0 }
          let own = zip(phi, u).reduce(0) { $0 + $1.0 * $1.1 }
          let spread = zip(Dense.solve(factor: l, u, p), u).reduce(0) { $0 + $1.0 * $1.1 }
          let base = hybrid.predict(x: x, item: item)
          let mine = model.predict(x: x, item: item, diner: view)
          #expect(abs(mine.mean - (base.mean + own)) < 1e-9, "mean of \(profile.id), d\(item)")
          #expect(abs(mine.variance - (base.variance + spread)) < 1e-9, "variance")
          let parts = (mine.parts + mine.dinerParts).reduce(0) { $0 + $1.value }
          #expect(abs(parts - mine.mean) < 1e-12)
          if user != nil && own != 0 { tested += 1 }
        }
      }
      #expect(tested > 20)
    }
  }

  @Test func disjointFitIsOneRidgeRegressionPerDish() throws {
    let world = World(seed: 9)
    let history = try world.history()
    let encoding = FeatureEncoding(catalog: world.catalog, profiles: world.profiles)
    let model = try LinearBanditModel(
      kind: .disjoint, lambda: 1, encoding: encoding, history: history, profiles: world.byID,
      factors: false)
    let d = encoding.dinerCount
    for item in 0..<world.catalog.count {
      var a = [Double](repeating: 0, count: d * d)
      var b = [Double](repeating: 0, count: d)
      for g in 0..<d { a[g * d + g] = 1 }
      for profile in world.profiles {
        guard let r = history.users[profile.id]?.record(for: Int32(item)) else { continue }
        let x = encoding.diner(profile)
        for i in x {
          b[Int(i)] += Double(r.right)
          for j in x { a[Int(i) * d + Int(j)] += Double(r.shown) }
        }
      }
      let l = Dense.cholesky(a, d)!
      let theta = Dense.solve(factor: l, b, d)
      for profile in world.profiles {
        let x = encoding.diner(profile)
        let xv = (0..<d).map { g in x.contains(Int32(g)) ? 1.0 : 0 }
        let p = model.predict(x: x, item: item)
        let mean = zip(theta, xv).reduce(0) { $0 + $1.0 * $1.1 }
        let s = zip(Dense.solve(factor: l, xv, d), xv).reduce(0) { $0 + $1.0 * $1.1 }
        #expect(abs(p.mean - mean) < 1e-12)
        #expect(abs(p.variance - s) < 1e-12)
      }
    }
  }

  /// Day by day, the statistics grow by each day's counts: the sum of the days' statistics is
  /// the statistics of the history up to the last day, bit for bit, so the model fitted once
  /// is the model updated in day-sized batches.
  @Test func batchesByDayAddUpToOneFit() throws {
    let world = World(seed: 4, days: 6)
    let encoding = FeatureEncoding(catalog: world.catalog, profiles: world.profiles)
    let whole = LinearBanditModel.Statistics(
      encoding: encoding, history: try world.history(), profiles: world.byID)
    let d = encoding.dinerCount
    var gram: [Int: [Double]] = [:]
    var b: [Int: [Double]] = [:]
    var counts: [String: (Double, Double)] = [:]
    for day: Int32 in 1...6 {
      let daily = LinearBanditModel.Statistics(
        encoding: encoding, history: try world.history(upTo: day, from: day),
        profiles: world.byID)
      for dish in daily.dishes {
        gram[dish.item] = zip(gram[dish.item] ?? Array(repeating: 0, count: d * d), dish.gram)
          .map { $0 + $1 }
        b[dish.item] = zip(b[dish.item] ?? Array(repeating: 0, count: d), dish.b).map { $0 + $1 }
      }
      for group in daily.groups {
        for c in group.counts {
          let key = "\(group.x) \(c.item)"
          let old = counts[key] ?? (0, 0)
          counts[key] = (old.0 + c.shown, old.1 + c.right)
        }
      }
      // The model after day `day` is the fit to the history up to it.
      let upTo = try world.history(upTo: day)
      let model = try LinearBanditModel(
        kind: .hybrid, lambda: 1, encoding: encoding, history: upTo, profiles: world.byID,
        factors: false)
      let again = try LinearBanditModel(
        kind: .hybrid, lambda: 1, encoding: encoding, history: upTo, profiles: world.byID,
        factors: false)
      #expect(model.beta == again.beta)
    }
    #expect(whole.dishes.count == gram.count)
    for dish in whole.dishes {
      #expect(dish.gram == gram[dish.item])
      #expect(dish.b == b[dish.item])
    }
    var wholeCounts: [String: (Double, Double)] = [:]
    for group in whole.groups {
      for c in group.counts { wholeCounts["\(group.x) \(c.item)"] = (c.shown, c.right) }
    }
    #expect(wholeCounts.count == counts.count)
    for (key, value) in wholeCounts {
      #expect(counts[key]?.0 == value.0 && counts[key]?.1 == value.1, "\(key)")
    }
  }

  /// The decks of diners with profiles (lints with its propensities) on 1, 2 and 5 threads.
  @Test(arguments: ["linucb", "lints"])
  func decksAreTheSameOnAnyNumberOfThreads(identifier: String) throws {
    let world = World(seed: 5, dishes: 9, diners: 20, swipes: 200)
    let history = try world.history()
    let strategy = try StrategyRegistry.make(
      identifier, options: identifier == "lints" ? ["samples": "20"] : [:])
    strategy.prepare(seed: 7, jobs: 2)
    strategy.prepare(profiles: world.profiles)
    try strategy.learn(catalog: world.catalog, history: history)
    var rules = DeckRules()
    rules.size = 4
    let builder = try DeckBuilder(catalog: world.catalog, rules: rules)
    func decks(_ jobs: Int) throws -> [Deck] {
      var pipeline = DeckPipeline(
        builder: builder, strategy: strategy, history: history, seed: 7,
        date: DeckDate.parse("2026-01-10")!)
      pipeline.batchSize = 3
      var out: [Deck] = []
      try pipeline.build(users: world.profiles, jobs: jobs) { out.append($0) }
      return out
    }
    let one = try decks(1)
    #expect(one.count == world.profiles.count)
    #expect(try decks(2) == one)
    #expect(try decks(5) == one)
  }

  @Test(arguments: ["linucb", "lints"])
  func explanationTermsSumToTheScore(identifier: String) throws {
    let world = World(seed: 6)
    let history = try world.history()
    let strategy = try StrategyRegistry.make(identifier)
    strategy.prepare(profiles: world.profiles)
    try strategy.learn(catalog: world.catalog, history: history)
    let explaining = try #require(strategy as? any ExplainingStrategy)
    for profile in world.profiles {
      var context = ScoringContext(
        user: profile, userHistory: history.users[profile.id], date: DeckDate.parse("2026-01-10")!,
        candidates: (0..<Int32(world.catalog.count)).map { $0 }, seed: 3)
      var again = context
      let values = strategy.score(&context).values
      let explanations = explaining.explain(&again, positions: Array(values.indices))
      for (k, e) in explanations.enumerated() {
        #expect(e.score == values[k])
        #expect(abs(e.terms.reduce(0) { $0 + $1.value } - e.score) < 1e-9)
        #expect(e.terms.last?.name == "exploration")
        #expect(e.terms.dropLast().allSatisfy { $0.name == "feature" && $0.about != nil })
      }
    }
  }

  @Test func featureNamesAreSortedByBytesAfterTheIntercept() throws {
    let catalog = try Catalog(items: [
      MenuItem(
        id: "a", name: "a", category: "rice", tags: ["spicy", "Cold"], price: 12,
        allergens: ["egg"], diets: ["vegan"], availability: Availability(weekdays: [.friday])),
      MenuItem(id: "b", name: "b", category: "noodles", price: 0),
    ])
    let encoding = FeatureEncoding(
      catalog: catalog,
      profiles: [
        UserProfile(id: "u", diets: ["vegan"], allergens: ["egg"], dislikedCategories: ["rice"])
      ])
    #expect(
      encoding.dishNames == [
        "dish", "allergen=egg", "category=noodles", "category=rice", "diet=vegan", "price.log2=3",
        "price.log2=zero", "tag=Cold", "tag=spicy", "weekday=fri",
      ])
    #expect(
      encoding.dinerNames == [
        "diner", "diner.allergen=egg", "diner.diet=vegan", "diner.dislikes=rice",
      ])
    #expect(encoding.itemFeatures[1] == [0, 2, 6])
    #expect(encoding.crossName(dish: 8, diner: 2) == "tag=spicy & diner.diet=vegan")
    #expect(encoding.crossName(dish: 0, diner: 0) == "intercept")
    #expect(encoding.diner(UserProfile(id: "v", diets: ["keto"])) == [0])
  }

  /// lints' draw is the posterior's: each dish's sampled reward has the model's mean and the
  /// variance v^2 s of linucb's width (s = Algorithm 2's s), over 20,000 draws.
  @Test(arguments: ["personal", "hybrid", "disjoint"])
  func drawsHaveThePosteriorsMeanAndVariance(model kind: String) throws {
    let world = World(seed: 8)
    let history = try world.history()
    let encoding = FeatureEncoding(catalog: world.catalog, profiles: world.profiles)
    let model = try LinearBanditModel(
      kind: LinearBanditModel.Kind(rawValue: kind)!, lambda: 1, encoding: encoding,
      history: history, profiles: world.byID, factors: true)
    let v = 0.7
    let draws = 20_000
    for profile in world.profiles.prefix(3) {
      let x = encoding.diner(profile)
      let view = model.dinerView(id: profile.id, history: history.users[profile.id])
      #expect((view != nil) == (kind == "personal"))
      let plan = model.plan(x: x, upTo: world.catalog.count - 1, diner: view)
      var random = RandomStream(seed: 11)
      var sum = [Double](repeating: 0, count: world.catalog.count)
      var squares = sum
      for _ in 0..<draws {
        for (a, value) in model.draw(plan, v: v, &random).enumerated() {
          sum[a] += value
          squares[a] += value * value
        }
      }
      for a in 0..<world.catalog.count {
        let p = model.predict(x: x, item: a, diner: view)
        let mean = sum[a] / Double(draws)
        let variance = squares[a] / Double(draws) - mean * mean
        let expected = v * v * p.variance
        #expect(abs(mean - p.mean) < 5 * (expected / Double(draws)).squareRoot(), "d\(a) mean")
        // The sample variance of 20,000 normals is within 5% of the truth (5 standard errors
        // of sqrt(2 / n) = 1%).
        #expect(abs(variance / expected - 1) < 0.05, "d\(a) variance \(variance) vs \(expected)")
      }
    }
  }
}
