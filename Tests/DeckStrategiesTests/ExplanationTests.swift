import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

/// Every built-in explains its scores: over many seeded random catalogs, histories, diners and
/// candidate sets, `explain` gives exactly `score`'s score for every candidate, the terms of a
/// sum add up to it within 1e-9 (relative), and a score that is a formula of its inputs is
/// recomputed from them here, within 1e-9. A strategy added to the registry without an
/// explanation, or without a check of its formula below, fails.
@Suite("Every built-in strategy explains its scores")
struct ExplanationTests {
  static let identifiers = StrategyRegistry.identifiers

  /// Options tried per strategy besides its defaults: the branches of each score.
  static let variants: [String: [[String: String]]] = [
    "popularity": [["per": "diner"], ["prior": "fixed", "prior_likes": "2", "prior_passes": "3"]],
    "affinity": [["prior_strength": "0"], ["weight_tags": "1", "weight_popularity": "0"]],
    "ucb": [["exploration": "0"]],
    "epsilon-greedy": [["epsilon": "0.5"], ["epsilon": "1"]],
    "itemknn": [
      ["neighbours": "1", "min_neighbours": "2", "saved_neighbours": "2"],
      ["left_swipes": "interactions", "popularity": "pick_rate", "recent_days": "4"],
      ["left_swipes": "ignore", "recent_likes": "2", "min_similarity": "0.5"],
    ],
    "blend": [["components": "thompson:1,itemknn:2,ucb:0,random:0.5"]],
    "diversify": [["depth": "3", "base": "affinity"], ["lambda": "0.2", "base": "thompson"]],
    "plackett-luce": [["temperature": "1", "base": "itemknn"], ["base": "random"]],
    "als": [["factors": "5", "iterations": "3", "alpha_left": "0"]],
    "ease": [
      ["left": "negative", "lambda": "1"], ["left": "interaction", "lambda": "0.5"],
      ["cold": "features"], ["cold": "features", "left": "negative", "lambda": "1"],
    ],
  ]

  /// Per strategy whose score is not only a sum of terms: pairs (a value recomputed from the
  /// explanation's parts, the value the explanation gives for it), which must agree within
  /// 1e-9. For a formula of inputs the score is among them.
  static let formulas: [String: @Sendable (ScoreExplanation) -> [(Double, Double)]] = [
    "random": { e in [(e.inputValue("draw"), e.score)] },
    "popularity": { e in
      let likes = e.input("likes") ?? e.inputValue("likers")
      let shown = e.input("shown") ?? e.inputValue("diners")
      let (a, b) = (e.inputValue("prior_a"), e.inputValue("prior_b"))
      return [((likes + a) / (shown + a + b), e.score)]
    },
    "affinity": affinityParts,
    "thompson": { e in
      [
        (e.inputValue("draw"), e.score),
        (e.inputValue("likes") + e.inputValue("prior_a"), e.inputValue("alpha")),
        (e.inputValue("passes") + e.inputValue("prior_b"), e.inputValue("beta")),
      ]
    },
    "ucb": { e in
      let (n, all, c) = (
        e.inputValue("shown"), e.inputValue("all_shown"), e.inputValue("exploration")
      )
      let logAll = all > 1 ? log(all) : 0
      guard n > 0 else {
        return [(2, e.termValue("unshown")), (c * logAll.squareRoot(), e.termValue("bonus"))]
      }
      return [
        (e.inputValue("likes") / n, e.termValue("rate")),
        (c * (logAll / n).squareRoot(), e.termValue("bonus")),
      ]
    },
    "epsilon-greedy": placeFormula,
    "itemknn": { e in
      guard e.formula != FeatureFallback.formula else { return coldParts(e) }
      let reached = e.inputValue("reached")
      let counted =
        reached >= e.inputValue("min_neighbours") ? min(reached, e.inputValue("neighbours")) : 0
      return [
        (e.inputValue("weight_popularity") * e.inputValue("popularity"), e.termValue("popularity")),
        (counted, Double(e.terms.filter { $0.name == "neighbour" }.count)),
      ]
    },
    "blend": { e in
      e.terms.map { t in
        let about = t.about ?? "(none)"
        return (
          e.inputValue("weight", about: about) * e.inputValue("normalised", about: about)
            / e.inputValue("total_weight"), t.value
        )
      }
    },
    "diversify": { e in
      var pairs = placeFormula(e)
      if let penalty = e.input("penalty") {
        let lambda = e.inputValue("lambda")
        pairs.append(
          (lambda * e.inputValue("relevance") - (1 - lambda) * penalty, e.inputValue("mmr")))
      }
      return pairs
    },
    "plackett-luce": { e in
      placeFormula(e) + [(e.inputValue("utility") + e.inputValue("gumbel"), e.inputValue("key"))]
    },
    "als": { e in e.formula == "likes" ? [(e.inputValue("likes"), e.score)] : coldParts(e) },
    "ease": { e in e.formula == "likes" ? [(e.inputValue("likes"), e.score)] : coldParts(e) },
  ]

  /// A dish with no swipes (`FeatureFallback`): Σ sim_j s_j / Σ sim_j from the inputs, in their
  /// order (the score's), and each term sim_j s_j / Σ sim_j; nothing for another explanation.
  @Sendable static func coldParts(_ e: ScoreExplanation) -> [(Double, Double)] {
    guard e.formula == FeatureFallback.formula else { return [] }
    let similarity = e.inputs.filter { $0.name == "similarity" }.map(\.value)
    let score = e.inputs.filter { $0.name == "neighbour_score" }.map(\.value)
    guard similarity.count == e.terms.count, score.count == e.terms.count else {
      return [(.nan, e.score)]
    }
    var sum = 0.0
    var weight = 0.0
    for (s, x) in zip(similarity, score) {
      sum += s * x
      weight += s
    }
    return [(sum / weight, e.score)]
      + e.terms.indices.map { k in (similarity[k] * score[k] / weight, e.terms[k].value) }
  }

  /// A score along an order: candidates + 1 - place.
  @Sendable static func placeFormula(_ e: ScoreExplanation) -> [(Double, Double)] {
    [(e.inputValue("candidates") + 1 - e.inputValue("place"), e.score)]
  }

  /// Affinity: each rate is the diner's shrunk rate of its category or tag, and each term the
  /// share of it the formula gives.
  @Sendable static func affinityParts(_ e: ScoreExplanation) -> [(Double, Double)] {
    let p = e.inputValue("popularity")
    let wp = e.inputValue("weight_popularity")
    guard e.terms.count > 1 else { return [(p, e.score)] }
    let m = e.inputValue("prior_strength")
    let wt = e.inputValue("weight_tags")
    let tags = Double(e.terms.filter { $0.name == "tag" }.count)
    var pairs = [(wp * p, e.termValue("popularity"))]
    for t in e.terms where t.name != "popularity" {
      let (r, n) = (
        e.inputValue(t.name + "_right", about: t.about),
        e.inputValue(t.name + "_shown", about: t.about)
      )
      let rate = n + m > 0 ? (r + m * p) / (n + m) : p
      let share = t.name == "tag" ? wt / tags : (tags == 0 ? 1 : 1 - wt)
      pairs += [
        (rate, e.inputValue(t.name + "_rate", about: t.about)), ((1 - wp) * share * rate, t.value),
      ]
    }
    return pairs
  }

  /// Whether `a` and `b` agree within `tolerance` of the larger size (`scale` at least).
  static func close(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9, scale: Double = 0)
    -> Bool
  {
    a == b || abs(a - b) <= tolerance * max(abs(a), abs(b), scale)
  }

  @Test("every registered built-in is an ExplainingStrategy")
  func conforms() {
    for type in StrategyRegistry.builtins {
      #expect(
        type is any ExplainingStrategy.Type,
        "\(type.description.identifier) does not explain its scores")
    }
  }

  @Test("every registered built-in has its parts in the table of docs/strategies.md")
  func documented() throws {
    let page = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("docs/strategies.md")
    let text = try String(contentsOf: page, encoding: .utf8)
    for identifier in Self.identifiers {
      #expect(text.contains("\n| \(identifier) | "), "\(identifier) has no row of parts")
    }
  }

  /// A random small catalog (2 to 9 dishes in 3 categories, up to 3 of 4 tags each) and up to
  /// 40 swipes of 6 diners over 9 days.
  static func randomFixture(_ seed: UInt64) throws -> ExampleRunner.Fixture {
    var random = RandomStream(seed: seed)
    let n = 2 + random.nextInt(below: 8)
    let categories = ["rice", "soup", "noodles"]
    let tags = ["warm", "cold", "egg", "tofu"]
    let items = (0..<n).map { i in
      let chosen = tags.filter { _ in random.nextDouble() < 0.35 }
      let category = categories[random.nextInt(below: 3)]
      return "d\(i):\(category)" + (chosen.isEmpty ? "" : ":" + chosen.joined(separator: "|"))
    }
    let events = (0..<random.nextInt(below: 41)).map { _ in
      "u\(1 + random.nextInt(below: 6)) d\(random.nextInt(below: n)) "
        + (random.nextDouble() < 0.6 ? "right" : "left")
        + " 2026-01-0\(1 + random.nextInt(below: 9))"
    }
    return try fixture(items: items, events: events, seed: seed)
  }

  @Test(
    "explain gives score()'s score bit for bit, its terms sum to it, its formula recomputes it",
    arguments: identifiers)
  func partsReconstructScores(_ identifier: String) throws {
    var checked = 0
    for seed: UInt64 in 1...40 {
      let f = try Self.randomFixture(seed)
      for options in [[:]] + (Self.variants[identifier] ?? []) {
        let strategy = try StrategyRegistry.make(identifier, options: options)
        guard let explaining = strategy as? any ExplainingStrategy else {
          Issue.record("\(identifier) does not explain its scores")
          return
        }
        strategy.prepare(seed: seed, jobs: 1)
        try strategy.learn(catalog: f.catalog, history: f.history)
        var pick = RandomStream(seed: seed &* 7919)
        for user in ["u1", "u2", "u3", "nobody"] {
          let all = (0..<Int32(f.catalog.count)).map { $0 }
          let candidates = seed % 3 == 0 ? all.filter { _ in pick.nextDouble() < 0.7 } : all
          let context = ScoringContext(
            user: UserProfile(id: user), userHistory: f.history.users[user], date: f.date,
            candidates: candidates, seed: seed)
          var scoring = context
          let values = strategy.score(&scoring).values
          var explaining1 = context
          let positions = Array(candidates.indices).shuffled(using: &pick)
          let explanations = explaining.explain(&explaining1, positions: positions)
          try #require(explanations.count == positions.count)
          let label = "\(identifier) \(options) seed \(seed) \(user)"
          for (k, e) in zip(positions, explanations) {
            #expect(
              e.score.bitPattern == values[k].bitPattern, "\(label) #\(k): \(e.score) \(values[k])")
            try check(identifier, e, label: "\(label) #\(k)")
            checked += 1
          }
          // One candidate alone is explained as among all.
          if let k = positions.first {
            var alone = context
            #expect(explaining.explain(&alone, positions: [k]) == [explanations[0]], "\(label)")
          }
        }
      }
    }
    #expect(checked > 500)
  }

  /// The sum and formula checks of one explanation.
  func check(_ identifier: String, _ e: ScoreExplanation, label: String) throws {
    #expect(!e.formula.isEmpty)
    #expect((e.terms + e.inputs).allSatisfy { $0.value.isFinite }, "\(label): \(e)")
    if e.formula == ScoreExplanation.sumOfTerms || e.formula == FeatureFallback.formula {
      let size = e.terms.reduce(0) { $0 + abs($1.value) }
      // ALS adds its factor terms in float32: to its rounding, (k + 4) 2^-24 of their size.
      let tolerance = identifier == "als" ? Double(e.terms.count + 4) * 0x1p-24 : 1e-9
      #expect(
        Self.close(e.termSum, e.score, tolerance, scale: size),
        "\(label): terms sum to \(e.termSum), score \(e.score)")
    } else {
      #expect(e.terms.isEmpty || Self.formulas[identifier] != nil, "\(label)")
    }
    guard let formula = Self.formulas[identifier] else {
      #expect(e.formula == ScoreExplanation.sumOfTerms, "\(label): no check of '\(e.formula)'")
      return
    }
    if ["blend", "diversify", "plackett-luce"].contains(identifier) {
      // A composite gives its components' own reasons too.
      #expect(e.inputs.contains { $0.name.contains(".") }, "\(label): no component's parts")
    }
    let pairs = formula(e)
    if e.formula != ScoreExplanation.sumOfTerms {
      #expect(pairs.contains { $0.1.bitPattern == e.score.bitPattern }, "\(label): score unchecked")
    }
    for (recomputed, given) in pairs {
      #expect(Self.close(recomputed, given), "\(label): \(recomputed) against \(given) in \(e)")
    }
  }
}

extension ScoreExplanation {
  /// The input's value, NaN (which no check accepts) when there is none.
  fileprivate func inputValue(_ name: String, about: String? = nil) -> Double {
    input(name, about: about) ?? .nan
  }

  /// The term's value, NaN (which no check accepts) when there is none.
  fileprivate func termValue(_ name: String, about: String? = nil) -> Double {
    term(name, about: about) ?? .nan
  }
}
