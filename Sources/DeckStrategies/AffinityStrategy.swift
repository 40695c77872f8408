import DeckCore

/// Content-based ranking: what this diner picks, by category and by tag, blended with what
/// everyone picks.
///
/// For dish `i` with global popularity `p` (the `popularity` strategy's smoothed pick rate, with
/// the same prior options: by default a Beta prior fitted to every dish's swipes) the diner's affinity through one category or tag, in which they swiped right `r`
/// times out of `n`, is their rate shrunk toward `p` by `m = prior_strength` pseudo swipes:
///
///     a = (r + m * p) / (n + m)
///
/// The dish's affinity is `(1 - weight_tags) * a(category) + weight_tags * mean(a(tag))` (only the
/// category for a dish without tags), and its score is
///
///     weight_popularity * p + (1 - weight_popularity) * affinity
///
/// Where the diner has no swipes in the dish's category or tags every `a` is `p`, so a diner with
/// no history gets exactly the `popularity` order and scores.
///
/// Cost per diner: one pass over their records to count swipes per category and tag into one dense
/// array, one division per category and tag (`a = r / (n + m) + p * m / (n + m)`), then a few
/// multiply-adds per candidate over per-item data packed at `learn`. No dictionaries, no strings.
///
/// Explanation: the terms `popularity` (weight_popularity x p), `category` and one `tag` per tag
/// ((1 - weight_popularity) x share x a, about the category or tag), which sum to the score;
/// the inputs p, the weights, `prior_strength` and per category and tag the diner's
/// `_right`, `_shown` and `_rate` (a). A diner with no swipes: the one term `popularity`, p.
package final class AffinityStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "affinity",
    summary:
      "the diner's pick rate per category and tag, shrunk toward and blended with global popularity",
    options: [
      OptionSpec(
        "weight_popularity", .double, default: .double(0.3), range: 0...1,
        tuning: [.double(0), .double(0.3), .double(0.6), .double(1)],
        "share of global popularity in the score; 1 is plain popularity, 0 is affinity only"),
      OptionSpec(
        "prior_strength", .double, default: .double(5), range: 0...1_000_000,
        "pseudo swipes pulling the diner's rate in a category or tag toward the dish's "
          + "popularity; larger needs more of their own swipes to move a dish"),
      OptionSpec(
        "weight_tags", .double, default: .double(0.5), range: 0...1,
        tuning: [.double(0), .double(0.5), .double(1)],
        "share of the mean tag affinity in a dish's affinity (the rest is its category's)"),
    ] + PriorChoice.options("per dish in global popularity, as in the popularity strategy"),
    examples: [
      StrategyExample(
        "a diner with no history gets the popularity order (2/3, 1/2, 1/2, 1/4)",
        items: [
          "miso-soup:soup:warm", "oyakodon:rice:warm|egg", "zaru-soba:noodles:cold",
          "tamagoyaki:side:egg",
        ],
        events: [
          "u2 oyakodon right 2026-01-05", "u3 tamagoyaki left 2026-01-05",
          "u4 tamagoyaki left 2026-01-06",
        ],
        user: "u1", expected: ["oyakodon", "miso-soup", "zaru-soba", "tamagoyaki"]),
      StrategyExample(
        "noodles picked, rice passed: oyakodon, more popular than miso soup, falls below it",
        items: [
          "oyakodon:rice", "katsudon:rice", "zaru-soba:noodles", "kitsune-udon:noodles",
          "miso-soup:soup",
        ],
        events: [
          "u1 zaru-soba right 2026-01-06", "u1 zaru-soba right 2026-01-08",
          "u1 oyakodon left 2026-01-07", "u1 katsudon left 2026-01-09",
          "u2 oyakodon right 2026-01-07", "u3 oyakodon right 2026-01-08",
        ],
        expected: ["zaru-soba", "kitsune-udon", "miso-soup", "oyakodon", "katsudon"]),
      StrategyExample(
        "a liked tag lifts a dish in a category the diner never saw",
        items: ["hiyayakko:side:tofu|cold", "tonkatsu:fried:pork", "mabo-tofu:chinese:tofu|spicy"],
        events: ["u1 hiyayakko right 2026-01-08", "u1 hiyayakko right 2026-01-09"],
        expected: ["hiyayakko", "mabo-tofu", "tonkatsu"]),
      StrategyExample(
        "weight_popularity 1 ignores the diner's taste (by default zaru-soba would come first)",
        items: ["oyakodon:rice", "zaru-soba:noodles"],
        events: [
          "u1 zaru-soba right 2026-01-05", "u1 zaru-soba right 2026-01-06",
          "u1 zaru-soba right 2026-01-07", "u2 oyakodon right 2026-01-06",
          "u3 oyakodon right 2026-01-07", "u4 oyakodon right 2026-01-08",
          "u5 oyakodon right 2026-01-09",
        ],
        options: ["weight_popularity": "1"],
        expected: ["oyakodon", "zaru-soba"]),
    ])

  private let weightPopularity: Double
  private let priorStrength: Double
  private let weightTags: Double
  private var prior: LearnedPrior

  /// Learned per catalog item, packed so that scoring one candidate reads one entry.
  private struct Item {
    var popularity: Double
    /// Index of the category's slot pair in the per-diner terms.
    var categorySlot: Int32
    /// The item's tags are `tagSlots[tagStart..<tagEnd]`.
    var tagStart: Int32
    var tagEnd: Int32
    /// Weights of the category affinity and of each tag affinity in the item's affinity:
    /// 1 and 0 without tags, else 1 - weight_tags and weight_tags / tag count.
    var categoryShare: Double
    var tagShare: Double
  }

  private var items: [Item] = []
  /// Per item, the slot-pair indices of its tags (after the categories' slot pairs).
  private var tagSlots: [Int32] = []
  private var slotCount = 0
  /// The name of each slot: the categories', then the tags'.
  private var slotNames: [String] = []

  package init(options: StrategyOptions) throws(StrategyError) {
    weightPopularity = options.double("weight_popularity")
    priorStrength = options.double("prior_strength")
    weightTags = options.double("weight_tags")
    prior = try LearnedPrior(options)
  }

  package var fitted: [FittedValue] { prior.fitted }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    let prior = try self.prior.learn(
      history, catalog: catalog, strategy: Self.description.identifier)
    let popularity = PopularityStrategy.pickRates(history, prior: prior)
    let categoryCount = catalog.categories.count
    var items: [Item] = []
    var tagSlots: [Int32] = []
    items.reserveCapacity(catalog.count)
    for i in 0..<catalog.count {
      let tags = catalog.itemTags[i]
      let start = Int32(tagSlots.count)
      for t in tags { tagSlots.append(Int32(categoryCount) + t) }
      items.append(
        Item(
          popularity: popularity[i], categorySlot: catalog.itemCategory[i], tagStart: start,
          tagEnd: Int32(tagSlots.count), categoryShare: tags.isEmpty ? 1 : 1 - weightTags,
          tagShare: tags.isEmpty ? 0 : weightTags / Double(tags.count)))
    }
    self.items = items
    self.tagSlots = tagSlots
    slotCount = categoryCount + catalog.tags.count
    slotNames = catalog.categories + catalog.tags
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    let candidates = context.candidates
    checkLearned(candidates)
    guard let records = context.userHistory?.records, !records.isEmpty else {
      return Scores(candidates.map { items[Int($0)].popularity })
    }
    let terms = slotTerms(records)
    var values = [Double](repeating: 0, count: candidates.count)
    terms.withUnsafeBufferPointer { terms in
      tagSlots.withUnsafeBufferPointer { tagSlots in
        for (k, candidate) in candidates.enumerated() {
          values[k] = value(items[Int(candidate)], terms, tagSlots)
        }
      }
    }
    return Scores(values)
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let candidates = context.candidates
    checkLearned(candidates)
    let records = context.userHistory?.records
    let terms = records.map { $0.isEmpty ? [] : slotTerms($0) } ?? []
    // The diner's right swipes and showings per slot, for the inputs.
    var counts = [Double](repeating: 0, count: 2 * slotCount)
    for record in records.map(Array.init) ?? [] {
      let item = items[Int(record.item)]
      for s in [item.categorySlot] + tagSlots[Int(item.tagStart)..<Int(item.tagEnd)] {
        counts[2 * Int(s)] += Double(record.right)
        counts[2 * Int(s) + 1] += Double(record.right) + Double(record.left)
      }
    }
    return positions.map { k in
      let item = items[Int(candidates[k])]
      let p = item.popularity
      var inputs = [
        ScorePart("popularity", p), ScorePart("weight_popularity", weightPopularity),
        ScorePart("weight_tags", weightTags), ScorePart("prior_strength", priorStrength),
      ]
      guard !terms.isEmpty else {
        return ScoreExplanation(
          score: p, terms: [ScorePart("popularity", p)], inputs: inputs,
          formula: ScoreExplanation.sumOfTerms)
      }
      let score = terms.withUnsafeBufferPointer { terms in
        tagSlots.withUnsafeBufferPointer { value(item, terms, $0) }
      }
      // The slot's rate a = (r + m p) / (n + m), as the score reads it from the slot terms.
      func part(_ kind: String, _ slot: Int32, share: Double) -> ScorePart {
        let s = 2 * Int(slot)
        let name = slotNames[Int(slot)]
        inputs += [
          ScorePart(kind + "_right", counts[s], about: name),
          ScorePart(kind + "_shown", counts[s + 1], about: name),
          ScorePart(kind + "_rate", terms[s] + terms[s + 1] * p, about: name),
        ]
        return ScorePart(
          kind, (1 - weightPopularity) * share * (terms[s] + terms[s + 1] * p), about: name)
      }
      var parts = [
        ScorePart("popularity", weightPopularity * p),
        part("category", item.categorySlot, share: item.categoryShare),
      ]
      for slot in tagSlots[Int(item.tagStart)..<Int(item.tagEnd)] {
        parts.append(part("tag", slot, share: item.tagShare))
      }
      return ScoreExplanation(
        score: score, terms: parts, inputs: inputs, formula: ScoreExplanation.sumOfTerms)
    }
  }

  private func checkLearned(_ candidates: [Int32]) {
    let count = UInt32(items.count)
    precondition(
      candidates.allSatisfy { UInt32(bitPattern: $0) < count },
      "affinity: score called before learn, or with a candidate outside the learned catalog")
  }

  /// Two terms per category and tag slot for one diner: first the diner's right and shown counts,
  /// then (in place) the shrinkage terms r / (n + m) and m / (n + m), so that the affinity
  /// through the slot is terms[2s] + terms[2s + 1] * popularity.
  private func slotTerms(_ records: UserItemRecords) -> [Double] {
    // Records are sorted by item, so the last one bounds them all.
    precondition(
      records.last.map { UInt32(bitPattern: $0.item) < UInt32(items.count) } ?? true,
      "affinity: the diner's history is not over the learned catalog")
    var terms = [Double](repeating: 0, count: 2 * slotCount)
    let m = priorStrength
    terms.withUnsafeMutableBufferPointer { terms in
      items.withUnsafeBufferPointer { items in
        tagSlots.withUnsafeBufferPointer { tagSlots in
          for record in records {
            let item = items[Int(record.item)]
            let right = Double(record.right)
            let shown = right + Double(record.left)
            let c = 2 * Int(item.categorySlot)
            terms[c] += right
            terms[c + 1] += shown
            for k in Int(item.tagStart)..<Int(item.tagEnd) {
              let t = 2 * Int(tagSlots[k])
              terms[t] += right
              terms[t + 1] += shown
            }
          }
          for s in 0..<slotCount {
            let denominator = terms[2 * s + 1] + m
            if denominator > 0 {
              terms[2 * s] /= denominator
              terms[2 * s + 1] = m / denominator
            } else {
              // No swipes and no prior (prior_strength 0): popularity alone.
              terms[2 * s] = 0
              terms[2 * s + 1] = 1
            }
          }
        }
      }
    }
    return terms
  }

  /// One candidate's score from the diner's slot terms: a few multiply-adds.
  @inline(__always)
  private func value(
    _ item: Item, _ terms: UnsafeBufferPointer<Double>, _ tagSlots: UnsafeBufferPointer<Int32>
  ) -> Double {
    let p = item.popularity
    let c = 2 * Int(item.categorySlot)
    var tagRate = 0.0
    var tagWeight = 0.0
    for j in Int(item.tagStart)..<Int(item.tagEnd) {
      let t = 2 * Int(tagSlots[j])
      tagRate += terms[t]
      tagWeight += terms[t + 1]
    }
    let affinity =
      item.categoryShare * (terms[c] + terms[c + 1] * p)
      + item.tagShare * (tagRate + tagWeight * p)
    return weightPopularity * p + (1 - weightPopularity) * affinity
  }
}
