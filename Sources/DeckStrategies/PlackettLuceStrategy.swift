import DeckBase
import DeckCore

/// A stochastic ranking: a Plackett-Luce draw from the softmax of another strategy's scores, with
/// a propensity on every card for off-policy evaluation of logged decks.
///
/// The `base` strategy (a built-in with its default options) scores the candidates `s_i`; each
/// gets the weight `w_i = exp(s_i / temperature)`. The ranking is drawn without replacement: the
/// first card is `i` with probability `w_i / sum of all w`, the next from the rest in proportion
/// to their weights, and so on. The deck's ranking is drawn in one pass with the Gumbel-max trick
/// (sort by `s_i / temperature + G_i`, `G_i` standard Gumbel), with draws from the diner's
/// stream for "plackett-luce" derived from (seed, date, user), one per candidate in candidate
/// order. The order is returned as scores `n, n - 1, ..., 1` along it. Low temperatures follow
/// the base order closely; high ones approach a uniform shuffle. The temperature is in the base's score
/// units (popularity scores lie in [0, 1], so the default 0.1 gives weights up to e^10 apart).
///
/// Propensity of a card, when the deck rules keep the ranking's order (`ScoringContext.deck` is
/// nil; otherwise see below): an estimate of the marginal probability P(item i at position k)
/// that the strategy puts the item at the position `k` it was drawn into. Exact marginals cost
/// exponential time in general, so it is estimated with `samples` further rankings `m`,
/// Rao-Blackwellised: each ranking contributes the conditional probability of choosing `i` at
/// position `k` given its first `k - 1` cards,
///
///     [i not among the first k - 1 of m] * w_i / (sum of w over the cards of m from position k on)
///
/// The deck's own ranking is averaged in as one more sample (so a card's propensity is never 0),
/// giving `(its term + sum over samples) / (samples + 1)`. The estimate is exact at position 1
/// (every term is `w_i / sum w`); over all items the estimates for any position sum to 1, as
/// each ranking's terms do. The deck's own term makes it slightly biased towards the realised
/// draw, by at most 1 / (samples + 1).
///
/// The further rankings are drawn card by card, not by Gumbel keys: each from a stream of its
/// own, seeded by the next number of the diner's stream (after the deck's own ranking), the next
/// card taken among those left in proportion to w by one uniform and a walk down a tree of
/// partial sums of w (`WeightTree`, O(log n) a card, the sum of the rest read at its root; a
/// Plackett-Luce draw up to the 2^-53 grid of the uniform and the rounding of the sums), and
/// only as far as the estimate needs: the places the deck shows (`ScoringContext.places`), so
/// that the other candidates carry 0 (no card carries them), or every place for a strategy
/// tried alone. Cost per diner: O(n) for the tree, then O(places log n) per sample.
///
/// That is the probability at the card's position in the strategy's ranking, which is its slot
/// in the deck only when the deck rules keep the ranking's order. When they may move cards
/// (pins, the category cap, no two neighbours of one category, recently shown dishes behind
/// the rest: `ScoringContext.deck` is set), a card's propensity is the probability of the
/// whole policy, ranking and deck rules, putting it at its slot: the share of the `samples`
/// further rankings, and the deck's own, whose decks have it there (a plain Monte Carlo
/// estimate, unbiased but for the same 1 / (samples + 1) towards the realised deck, with the
/// binomial error of `samples` draws). The deck takes a ranking in its key order (the
/// candidates not shown recently, then those shown recently, pins aside) and only until it is
/// full, so each further ranking is dealt to it lazily (`DeckSlots.order(keyOrder:)`): a
/// Plackett-Luce ranking of the candidates not shown recently, then one of those shown
/// recently, each from its tree, card by card as the deck asks (which is a Plackett-Luce
/// ranking of all of them seen through the deck's key order: the order a ranking induces on a
/// subset is Plackett-Luce with the same weights, independently for disjoint subsets). Cost per
/// diner: O(n) for the trees, then per sample O(log n) for each card the deck takes or passes
/// over.
///
/// When the deck rules keep the ranking's order, the scores also carry the distribution the
/// ranking is drawn from, `RankingPolicy.plackettLuce` with these logits, when the context
/// `wantsPolicy` (and then no propensities: the evaluation that asks has the distribution
/// itself, and the `samples` draws are skipped) (sorting by `logit_i + G_i` with independent standard Gumbel `G_i` is a
/// Plackett-Luce draw with weights `exp(logit_i)`: exactly so for continuous uniforms, and up
/// to their 2^-52 grid and ties of probability about n^2 2^-53 here). They always carry the
/// prefix propensities: per card at position k (1-based) of the ranking `o`, the probability of
/// the ranking's first k cards,
///
///     product over k' = 1...k of w_(o_k') / (sum of w over o_k', o_(k'+1), ..., o_n)
///
/// computed in log space; it takes no draws, so the draws above are unchanged. With deck rules
/// that may move cards there is neither.
///
/// Explanation: the inputs `place` and `candidates` (the score is candidates + 1 - place), the
/// `base_score` (about the base), `temperature`, the `utility` (the logit, base score over the
/// temperature less the top one's), the draw's `gumbel` and `key` (utility + gumbel: the ranking
/// is by key) and `first_place_probability` (the softmax of the utilities); then the base's own
/// parts, named `<base>.<part>`.
package final class PlackettLuceStrategy: BuiltinStrategy, ExplainingStrategy, BaseRanking {
  package static let description = StrategyDescription(
    identifier: "plackett-luce",
    summary:
      "a ranking drawn from softmax(base scores / temperature), with per-card propensities",
    options: [
      OptionSpec(
        "base", .string, default: .string("popularity"),
        "the built-in strategy whose scores are the softmax logits (with its default options)"),
      OptionSpec(
        "temperature", .double, default: .double(0.1), range: 0.0001...1_000_000,
        tuning: [.double(0.01), .double(0.1), .double(1)],
        "divides the base scores before the softmax; lower follows the base order more closely"),
      OptionSpec(
        "samples", .int, default: .int(100), range: 1...1_000_000,
        "rankings drawn per diner to estimate the propensities (more is slower but more precise)"
      ),
    ],
    examples: [
      StrategyExample(
        "a low temperature (0.001) follows the base (popularity) order: 3 of 4, 1 of 1, unshown, 0 of 2",
        items: exampleMenu,
        events: exampleSwipes("zaru-soba", right: 3, left: 1)
          + exampleSwipes("oyakodon", right: 1, left: 0)
          + exampleSwipes("tonkatsu", right: 0, left: 2),
        options: ["temperature": "0.001"],
        expected: ["zaru-soba", "oyakodon", "miso-soup", "tonkatsu"]),
      StrategyExample(
        "seed 42, default temperature 0.1 (pins the draw: a change of algorithm fails here)",
        items: exampleMenu,
        events: exampleMenuSwipes,
        expected: ["oyakodon", "zaru-soba", "miso-soup", "tonkatsu"]),
      StrategyExample(
        "temperature 1000 is close to a uniform shuffle (diner u2)",
        items: exampleMenu,
        events: exampleMenuSwipes,
        user: "u2",
        options: ["temperature": "1000"],
        expected: ["miso-soup", "zaru-soba", "tonkatsu", "oyakodon"]),
    ])

  package let base: any BuiltinStrategy
  private let temperature: Double
  private let samples: Int

  package init(options: StrategyOptions) throws(StrategyError) {
    base = try Self.base(options)
    temperature = options.double("temperature")
    samples = options.int("samples")
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try learnBase(catalog: catalog, history: history)
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    var (_, logits, keys, random) = drawKeys(context)
    let n = logits.count
    let policy = RankingPolicy.plackettLuce(logits: logits)
    let wanted = context.deck == nil && context.wantsPolicy ? policy : nil
    guard n > 0 else { return Scores([], propensities: [], policy: wanted) }
    let order = Self.order(keys)
    if let deck = context.deck {
      return Scores(
        scoresAlong(order), propensities: deckPropensities(logits, order: order, deck, &random))
    }
    var position = [Int](repeating: 0, count: n)
    for (p, k) in order.enumerated() { position[k] = p }
    let prefix = policy.prefixProbabilities(order)
    if let wanted {
      // An evaluation that has the distribution needs no estimate of it: the `samples` draws
      // of the propensities are skipped. The deck is the same.
      return Scores(
        scoresAlong(order), prefixPropensities: position.map { prefix[$0] }, policy: wanted)
    }

    let places = min(n, max(0, context.places ?? n))
    return Scores(
      scoresAlong(order),
      propensities: Self.estimate(
        logits, order: order, places: places, samples: samples, &random),
      prefixPropensities: position.map { prefix[$0] }, policy: wanted)
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let (values, logits, keys, _) = drawKeys(context)
    let order = Self.order(keys)
    let scores = scoresAlong(order)
    var place = [Int](repeating: 0, count: order.count)
    for (p, k) in order.enumerated() { place[k] = p }
    let total = logits.reduce(-.infinity, logAddExp)
    var own = context
    own.deck = nil  // as the base scores in `drawKeys`
    let baseParts = componentParts(
      base, own, positions: positions, prefix: base.description.identifier)
    return zip(positions, baseParts).map { k, baseParts in
      ScoreExplanation(
        score: scores[k],
        inputs: [
          ScorePart("place", Double(place[k] + 1)), ScorePart("candidates", Double(order.count)),
          ScorePart("base_score", values[k], about: base.description.identifier),
          ScorePart("temperature", temperature), ScorePart("utility", logits[k]),
          ScorePart("gumbel", keys[k] - logits[k]), ScorePart("key", keys[k]),
          ScorePart("first_place_probability", exp(logits[k] - total)),
        ] + baseParts,
        formula: scoreAlongFormula)
    }
  }

  /// One diner's draw: the base's scores, as logits, their Gumbel-max keys (the ranking is the
  /// keys' order), and the diner's "plackett-luce" stream after them (the propensities' draws
  /// continue it).
  private func drawKeys(_ context: ScoringContext) -> (
    values: [Double], logits: [Double], keys: [Double], random: RandomStream
  ) {
    var own = context
    own.deck = nil  // the base's scores only
    let values = base.score(&own).values
    let logits = Self.logits(values, temperature: temperature)
    var random = RandomStream(
      seed: context.seed, date: context.date, user: context.user.id, purpose: "plackett-luce")
    return (values, logits, Self.keys(logits, &random), random)
  }

  /// The propensities when the deck rules may move cards (see the type's description): per
  /// candidate, the share of the deck's own draw and `samples` further draws whose decks put it
  /// at the slot this deck puts it in. (Candidates left off the deck get 1 / (samples + 1);
  /// no card carries those.) Each further draw is dealt lazily: the deck takes the candidates
  /// in key order (those not shown recently, then those shown recently, pins aside), so the
  /// draw is a Plackett-Luce ranking of the first kind, then one of the second, each drawn
  /// card by card from its `WeightTree` only as far as the deck asks.
  private func deckPropensities(
    _ logits: [Double], order: [Int], _ deck: DeckSlots, _ random: inout RandomStream
  ) -> [Double] {
    var slot = [Int](repeating: -1, count: logits.count)
    for (j, k) in Self.deckOrder(of: order, deck).enumerated() { slot[k] = j }
    var hits = [Int](repeating: 1, count: logits.count)
    var (unseen, recent) = Self.keyTrees(logits, deck.candidates)
    for _ in 0..<samples {
      var stream = Self.sampleStream(&random)
      let drawn = deck.order(keyOrder: {
        Self.nextInKeyOrder(&unseen, &recent, &stream)
      })
      for (j, k) in drawn.enumerated() where slot[k] == j { hits[k] += 1 }
      unseen.restore()
      recent.restore()
    }
    return hits.map { Double($0) / Double(samples + 1) }
  }

  // MARK: - Plackett-Luce helpers (internal for tests)

  /// Scores divided by the temperature, shifted so that the largest is 0 (weights exp(logit)
  /// then lie in (0, 1] and cannot overflow).
  static func logits(_ values: [Double], temperature: Double) -> [Double] {
    let top = values.max() ?? 0
    return values.map { ($0 - top) / temperature }
  }

  /// One Plackett-Luce ranking (candidate indices, first card first) by the Gumbel-max trick:
  /// one open uniform per candidate, in candidate order; ties by candidate order.
  static func draw(_ logits: [Double], _ random: inout RandomStream) -> [Int] {
    order(keys(logits, &random))
  }

  /// The ranking of Gumbel-max keys: by key, highest first, ties by candidate order.
  static func order(_ keys: [Double]) -> [Int] {
    keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] > keys[$1] : $0 < $1 }
  }

  /// The Gumbel-max keys of one draw: logit_i - ln(-ln u_i), one open uniform per candidate,
  /// in candidate order.
  static func keys(_ logits: [Double], _ random: inout RandomStream) -> [Double] {
    logits.map { $0 - log(-log(random.nextOpenDouble())) }
  }

  /// The random stream of one further draw: a stream of its own, seeded by the next number of
  /// the diner's stream, so that each draw takes one number from it however many cards it deals
  /// (and the draws do not depend on how many places are asked for).
  static func sampleStream(_ random: inout RandomStream) -> RandomStream {
    RandomStream(seed: random.next())
  }

  /// The deck the rules make of a whole ranking (the deck's own draw): as from its scores
  /// (`scoresAlong(order)`), but the ranking is handed over in the deck's key order, those not
  /// shown recently first, only as far as the deck takes it (no heap of every candidate).
  static func deckOrder(of order: [Int], _ deck: DeckSlots) -> [Int] {
    let recent = deck.candidates.recentlyShown
    var p = 0
    var late = false  // on the second pass, for those shown recently
    return deck.order(keyOrder: {
      while true {
        if p == order.count {
          if late { return nil }
          late = true
          p = 0
        }
        let k = order[p]
        p += 1
        if recent[k] == late { return k }
      }
    })
  }

  /// The trees a further draw is dealt from under deck rules, by the candidates' place in the
  /// deck's key order: those not shown recently, and those shown recently (pins in neither:
  /// the deck places them first whatever the ranking).
  static func keyTrees(_ logits: [Double], _ candidates: CandidateSet) -> (
    unseen: WeightTree, recent: WeightTree
  ) {
    var unseen: [Int] = []
    var recent: [Int] = []
    unseen.reserveCapacity(logits.count)
    for k in logits.indices where !candidates.pinned.contains(candidates.items[k]) {
      if candidates.recentlyShown[k] { recent.append(k) } else { unseen.append(k) }
    }
    return (
      WeightTree(members: unseen, logits: logits), WeightTree(members: recent, logits: logits)
    )
  }

  /// The next candidate of a draw in the deck's key order: from `unseen` while any is left,
  /// then from `recent`; nil when both are empty. One uniform per card.
  static func nextInKeyOrder(
    _ unseen: inout WeightTree, _ recent: inout WeightTree, _ stream: inout RandomStream
  ) -> Int? {
    if unseen.remaining > 0 { return unseen.members[unseen.draw(stream.nextDouble())] }
    if recent.remaining > 0 { return recent.members[recent.draw(stream.nextDouble())] }
    return nil
  }

  /// The propensities of the candidates at the first `places` positions of `order` (the deck's
  /// own ranking), 0 for the others: the mean over `order` and `samples` further draws of the
  /// Rao-Blackwellised term of each of those candidates i at its position k,
  ///
  ///     [i not among the draw's first k cards] * w_i / (the weight of the rest of the draw)
  ///
  /// Each draw is dealt card by card from a `WeightTree` of every candidate (whose root is the
  /// weight of the rest), only as far as position `places - 1`, from a stream of its own
  /// (`sampleStream`): O(n) once, then O(places log n) per draw. With every place asked for it
  /// is the same computation to the end, so the first `places` propensities do not depend on
  /// `places`, bit for bit.
  static func estimate(
    _ logits: [Double], order: [Int], places: Int, samples: Int, _ random: inout RandomStream
  ) -> [Double] {
    let n = logits.count
    precondition(order.count == n && places >= 0 && places <= n, "estimate: places in 0...n")
    var out = [Double](repeating: 0, count: n)
    guard places > 0 else { return out }
    var tree = WeightTree(members: Array(0..<n), logits: logits)
    var sums = [Double](repeating: 0, count: n)
    // The deck's own ranking is one more draw: its own cards come out of the tree in its order.
    for k in 0..<places {
      let i = order[k]
      sums[i] = exp(logits[i] - tree.logRemaining())
      if k + 1 < places { tree.take(i) }
    }
    tree.restore()
    var drawn = [Bool](repeating: false, count: n)
    for _ in 0..<samples {
      var stream = sampleStream(&random)
      for k in 0..<places {
        let i = order[k]
        if !drawn[i] { sums[i] += exp(logits[i] - tree.logRemaining()) }
        if k + 1 < places { drawn[tree.draw(stream.nextDouble())] = true }
      }
      for leaf in tree.taken { drawn[leaf] = false }
      tree.restore()
    }
    for k in 0..<places {
      let i = order[k]
      out[i] = sums[i] / Double(samples + 1)
    }
    return out
  }

  /// `tail[p]` = the log of the sum of w over `order[p...]` (log-sum-exp from the end), for p in
  /// 0...n (`tail[n]` is -infinity, the empty sum).
  static func tails(_ logits: [Double], order: [Int]) -> [Double] {
    let n = order.count
    var tail = [Double](repeating: -.infinity, count: n + 1)
    for p in stride(from: n - 1, through: 0, by: -1) {
      tail[p] = logAddExp(tail[p + 1], logits[order[p]])
    }
    return tail
  }

  /// The marginal matrix of the first `positions` places (default all n): `result[k][i]` is
  /// P(candidate i at position k), exactly for the first position (w_i / sum w, the softmax)
  /// and, with two candidates, for the second (the other one's first-place probability).
  /// The other positions are estimated from `samples` rankings drawn from `random`, with the
  /// same Rao-Blackwellised terms as the propensities: each draw contributes, for position
  /// k, every candidate's conditional probability of coming k-th given the draw's first k cards
  /// (0 for those cards). Draws are taken only when such a position is asked for. Every row sums
  /// to 1 (each draw's terms at a position do). Cost: `samples` sorts and O(positions n) per
  /// draw.
  static func marginals(
    _ logits: [Double], positions: Int? = nil, samples: Int, _ random: inout RandomStream
  ) -> [[Double]] {
    let n = logits.count
    let places = min(positions ?? n, n)
    guard places > 0 else { return [] }
    let total = logits.reduce(-.infinity, logAddExp)
    var result = [logits.map { exp($0 - total) }]
    if places == 1 { return result }
    if n == 2 { return result + [[result[0][1], result[0][0]]] }
    precondition(samples > 0, "plackett-luce marginals: no samples to estimate with")
    result += [[Double]](repeating: [Double](repeating: 0, count: n), count: places - 1)
    for _ in 0..<samples {
      let order = draw(logits, &random)
      let tail = tails(logits, order: order)
      for k in 1..<places {
        for i in order[k...] { result[k][i] += exp(logits[i] - tail[k]) / Double(samples) }
      }
    }
    return result
  }
}
