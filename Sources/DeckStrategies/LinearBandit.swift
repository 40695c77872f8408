import DeckBase
import DeckCore

/// The ridge regression shared by `linucb` and `lints` (docs/strategies.md, "linucb"): the
/// hybrid linear model of Li et al. 2010 (Algorithm 2), or its disjoint special case, fitted
/// once to the swipes of a history (right = 1, left = 0); model `personal` adds a part per
/// diner fitted to what the hybrid leaves (`DinerPart`, LinearBanditDiner.swift).
///
/// Hybrid: the expected reward of dish a for a diner with features x is
///
///     z_a^T beta + x^T theta_a,      z_a = u_a (x) x (the crosses, `FeatureEncoding`)
///
/// with the ridge penalty lambda on every parameter. The normal equations of the joint
/// parameter (beta, theta_1, ..., theta_K) are solved by eliminating the per-dish blocks (what
/// Algorithm 2's updates of A_0 and b_0 keep):
///
///     A_a = lambda I + X_a,  X_a = sum over a's swipes of x x^T,  b_a = sum of r x
///     B_a = sum of x z^T = u_a^T (x) X_a   (u_a is the same on every swipe of a)
///     S   = lambda I + sum of z z^T - sum_a B_a^T A_a^-1 B_a
///     c   = sum of r z - sum_a B_a^T A_a^-1 b_a
///     beta = S^-1 c,   theta_a = A_a^-1 (b_a - B_a beta)
///
/// and the variance of the mean (Algorithm 2's s_(t,a)) is, with y = A_a^-1 x,
///
///     s = v^T S^-1 v + x^T y,   v = lambda (u_a (x) y)    (v = z - B_a^T A_a^-1 x)
///
/// Crosses that no swipe touches have no row in S (their row would be lambda I alone): their
/// beta is 0 and they add |v|^2 / lambda to s, exactly, so S is as large as the crosses the
/// history uses. Disjoint: no beta; theta_a = A_a^-1 b_a and s = x^T A_a^-1 x (OBP's LinUCB).
///
/// Every statistic (X_a, b_a, sum z z^T, sum r z) is a sum of swipe counts: integers, exact
/// in doubles (below 2^53) in any order of addition. So replaying the swipes day by day (adding
/// each day's counts to the statistics of the days before, as Algorithm 2 does in batches)
/// gives the same statistics bit for bit as one fit to the history up to the deck date, and
/// then the same solution: `learn` fits once.
struct LinearBanditModel: Sendable {
  enum Kind: String, Sendable, CaseIterable { case personal, hybrid, disjoint }

  /// One dish with swipes: its statistics and solution (a dish without has A_a = lambda I,
  /// b_a = 0: theta_a = 0 in both models).
  struct DishBlock: Sendable {
    /// X_a (d x d, row-major, symmetric).
    var gram: [Double]
    var b: [Double]
    /// A_a^-1.
    var inverse: [Double]
    /// theta_a.
    var theta: [Double]
    /// The Cholesky factor L of A_a = L L^T (lower, row-major), for `lints`' draws.
    var factor: [Double]
  }

  let kind: Kind
  let lambda: Double
  let encoding: FeatureEncoding
  /// Block index per catalog item (-1: no swipes).
  let blockOf: [Int32]
  let blocks: [DishBlock]
  /// Compact index per cross f * d + g (-1: no swipe touches it; not in S).
  let active: [Int32]
  /// The cross index of each compact index, ascending.
  let crosses: [Int]
  /// beta over the compact crosses.
  let beta: [Double]
  /// S^-1 (k x k, full).
  let sInverse: SymmetricMatrix
  /// The Cholesky factor of S (lower, row-major), only when asked for (`lints`).
  let sFactor: [Double]
  /// Model `personal`: each diner's own part (see `DinerPart`), by diner id.
  let diners: [IDKey: DinerPart]

  var d: Int { encoding.dinerCount }

  /// Fits the model to `history`; `profiles` gives each swiping diner's features (a diner
  /// without one has the intercept alone). `factors`: also keep the Cholesky factors `lints`
  /// draws with.
  init(
    kind: Kind, lambda: Double, encoding: FeatureEncoding, history: History,
    profiles: [IDKey: UserProfile], factors: Bool
  ) throws(LinearAlgebraFailure) {
    self.kind = kind
    self.lambda = lambda
    self.encoding = encoding
    let d = encoding.dinerCount
    let stats = Statistics(
      encoding: encoding, history: history, profiles: profiles, diners: kind == .personal)
    var blocks: [DishBlock] = []
    var blockOf = [Int32](repeating: -1, count: encoding.itemFeatures.count)
    for (item, gram, b) in stats.dishes {
      blockOf[item] = Int32(blocks.count)
      var a = gram
      for g in 0..<d { a[g * d + g] += lambda }
      guard let factor = Dense.cholesky(a, d) else { throw .notPositiveDefinite }
      let inverse = Dense.inverse(factor: factor, d)
      blocks.append(
        DishBlock(
          gram: gram, b: b, inverse: inverse, theta: Dense.multiply(inverse, b, d),
          factor: factors ? factor : []))
    }
    self.blockOf = blockOf
    guard kind != .disjoint else {
      self.blocks = blocks
      active = []
      crosses = []
      beta = []
      sInverse = SymmetricMatrix(n: 0)
      sFactor = []
      diners = [:]
      return
    }
    let shared = try SharedPart(
      stats: stats, blocks: blocks, encoding: encoding, lambda: lambda, factor: factors)
    shared.solveDishes(stats: stats, blocks: &blocks, encoding: encoding)
    diners =
      kind == .personal
      ? Self.fitDiners(
        stats: stats, blockOf: blockOf, blocks: blocks, shared: shared, encoding: encoding,
        lambda: lambda) : [:]
    active = shared.active
    crosses = shared.crosses
    beta = shared.beta
    sInverse = shared.sInverse
    sFactor = shared.sFactor
    self.blocks = blocks
  }

  /// w[g] = sum over the dish features f of `item` of `beta`[(f, g)] (0 for inactive crosses).
  func sharedWeights(item: Int, beta: [Double]) -> [Double] {
    Self.sharedWeights(encoding, active, item: item, beta: beta)
  }

  static func sharedWeights(
    _ encoding: FeatureEncoding, _ active: [Int32], item: Int, beta: [Double]
  ) -> [Double] {
    let d = encoding.dinerCount
    var w = [Double](repeating: 0, count: d)
    for f in encoding.itemFeatures[item] {
      for g in 0..<d {
        let c = active[Int(f) * d + g]
        if c >= 0 { w[g] += beta[Int(c)] }
      }
    }
    return w
  }

  /// One (diner, dish) prediction: the parts of the mean and the variance s.
  struct Prediction {
    /// (cross index f * d + g or -1 - g for the per-dish part, contribution), in the order they
    /// are summed: the shared crosses of u_a x x (f, then g ascending), then theta_a's.
    var parts: [(feature: Int, value: Double)]
    /// Model `personal`: the diner part's terms (dish feature, weight), summed after `parts`.
    var dinerParts: [(feature: Int, value: Double)] = []
    var mean: Double
    var variance: Double
  }

  /// The mean and variance for diner features `x` (ascending indices) and catalog `item`.
  func predict(x: [Int32], item: Int, diner: DinerView? = nil) -> Prediction {
    let d = self.d
    var parts: [(feature: Int, value: Double)] = []
    var mean = 0.0
    if kind != .disjoint {
      for f in encoding.itemFeatures[item] {
        for g in x {
          let cross = Int(f) * d + Int(g)
          let c = active[cross]
          guard c >= 0 else { continue }
          parts.append((cross, beta[Int(c)]))
          mean += beta[Int(c)]
        }
      }
    }
    let k = Int(blockOf[item])
    // y = A_a^-1 x.
    var y = [Double](repeating: 0, count: d)
    if k >= 0 {
      let block = blocks[k]
      for g in x {
        parts.append((-1 - Int(g), block.theta[Int(g)]))
        mean += block.theta[Int(g)]
      }
      for i in 0..<d {
        var s = 0.0
        for g in x { s += block.inverse[i * d + Int(g)] }
        y[i] = s
      }
    } else {
      for g in x { y[Int(g)] = 1 / lambda }
    }
    var variance = 0.0
    for g in x { variance += y[Int(g)] }
    if kind != .disjoint { variance += sharedVariance(item: item, y: y) }
    var own: [(feature: Int, value: Double)] = []
    if let diner {
      let part = dinerPrediction(diner, item: item)
      own = part.terms
      mean += part.mean
      variance += part.variance
    }
    return Prediction(parts: parts, dinerParts: own, mean: mean, variance: max(0, variance))
  }

  /// v^T S^-1 v + |v outside S|^2 / lambda for v = lambda (u_a (x) y).
  private func sharedVariance(item: Int, y: [Double]) -> Double {
    let d = self.d
    var index: [Int] = []
    var value: [Double] = []
    var outside = 0.0
    for f in encoding.itemFeatures[item] {
      for g in 0..<d where y[g] != 0 {
        let v = lambda * y[g]
        let c = active[Int(f) * d + g]
        if c >= 0 {
          index.append(Int(c))
          value.append(v)
        } else {
          outside += v * v / lambda
        }
      }
    }
    var quad = 0.0
    for i in index.indices {
      var row = 0.0
      for j in index.indices { row += sInverse[index[i], index[j]] * value[j] }
      quad += value[i] * row
    }
    return quad + outside
  }
}

/// A ridge system that is not positive definite in doubles (the Cholesky factorisation met a
/// pivot at or below 0): a lambda too small for the counts.
enum LinearAlgebraFailure: Error, Equatable {
  case notPositiveDefinite
}

extension LinearBanditModel {
  /// The swipe statistics of a history, dish by dish and (for the shared part) by (diner
  /// features, dish): counts only.
  struct Statistics {
    /// Per dish with swipes, in catalog order: X_a and b_a.
    var dishes: [(item: Int, gram: [Double], b: [Double])] = []
    /// Per distinct diner feature vector with swipes, in the order first met among the diners
    /// sorted by id bytes: the vector and its (item, shown, right) counts, by item.
    var groups: [(x: [Int32], counts: [(item: Int, shown: Double, right: Double)])] = []
    /// With `diners`: per diner with swipes, by id bytes, its group and its records (shown > 0).
    var diners: [(key: IDKey, group: Int, records: [(item: Int, shown: Double, right: Double)])] =
      []

    init(
      encoding: FeatureEncoding, history: History, profiles: [IDKey: UserProfile],
      diners keepDiners: Bool = false
    ) {
      let d = encoding.dinerCount
      // Flat statistics per dish in the order first swiped; sorted into catalog order below.
      var slot = [Int32](repeating: -1, count: encoding.itemFeatures.count)
      var grams: [Double] = []
      var rights: [Double] = []
      var groupOf: [[Int32]: Int] = [:]
      var counts: [[Int: (Double, Double)]] = []
      var vectors: [[Int32]] = []
      for id in history.userIDs {
        guard let user = history.users[id] else { continue }
        let key = IDKey(id)
        let x = encoding.diner(profiles[key] ?? UserProfile(id: id))
        let group: Int
        if let known = groupOf[x] {
          group = known
        } else {
          group = vectors.count
          groupOf[x] = group
          vectors.append(x)
          counts.append([:])
        }
        var own: [(item: Int, shown: Double, right: Double)] = []
        defer { if keepDiners && !own.isEmpty { diners.append((key, group, own)) } }
        for record in user.records {
          let item = Int(record.item)
          let n = Double(record.shown)
          let r = Double(record.right)
          guard n > 0 else { continue }
          if keepDiners { own.append((item, n, r)) }
          if slot[item] < 0 {
            slot[item] = Int32(rights.count / d)
            grams += repeatElement(0, count: d * d)
            rights += repeatElement(0, count: d)
          }
          let s = Int(slot[item])
          for i in x {
            rights[s * d + Int(i)] += r
            for j in x { grams[s * d * d + Int(i) * d + Int(j)] += n }
          }
          let old = counts[group][item] ?? (0, 0)
          counts[group][item] = (old.0 + n, old.1 + r)
        }
      }
      for item in slot.indices where slot[item] >= 0 {
        let s = Int(slot[item])
        dishes.append(
          (item, Array(grams[s * d * d..<(s + 1) * d * d]), Array(rights[s * d..<(s + 1) * d])))
      }
      groups = vectors.indices.map { k in
        (vectors[k], counts[k].keys.sorted().map { ($0, counts[k][$0]!.0, counts[k][$0]!.1) })
      }
    }
  }
}

/// What `linucb` and `lints` share: the model options, the diners' profiles given before
/// `learn`, and the model the last `learn` fitted.
struct LinearBanditCore {
  let kind: LinearBanditModel.Kind
  let lambda: Double
  /// Whether the diners' profiles give features (else every diner is the intercept alone).
  let dinerFeatures: Bool
  private(set) var profiles: [IDKey: UserProfile] = [:]
  private var profileList: [UserProfile] = []
  private(set) var model: LinearBanditModel?

  /// The `model` and `lambda` options.
  static let options = [
    OptionSpec(
      "model", .string, default: .string("personal"),
      "personal: hybrid plus a part per diner over the dish features, fitted to what the hybrid "
        + "leaves; hybrid: a part shared by all dishes over dish x diner feature crosses plus a "
        + "part per dish over the diner features (Li et al. 2010, Algorithm 2); disjoint: the "
        + "part per dish alone"),
    OptionSpec(
      "lambda", .double, default: .double(30), range: 0.0001...1_000_000,
      tuning: [.double(1), .double(10), .double(30), .double(100)],
      "the ridge penalty: every parameter's prior precision (A starts as lambda I)"),
    OptionSpec(
      "diner_features", .bool, default: .bool(false),
      "whether the diners' diets, allergens and disliked categories are features (false: every "
        + "diner is the intercept alone, so the shared part is over the dish features)"),
  ]

  init(_ options: StrategyOptions) throws(StrategyError) {
    kind = try options.choice("model", LinearBanditModel.Kind.self)
    lambda = options.double("lambda")
    dinerFeatures = options.bool("diner_features")
  }

  mutating func prepare(profiles: [UserProfile]) {
    profileList = profiles
    self.profiles = [:]
    for profile in profiles { self.profiles[IDKey(profile.id)] = profile }
  }

  /// Fits the model to `history` (`factors`: also the Cholesky factors `lints` draws with).
  mutating func learn(catalog: Catalog, history: History, strategy: String, factors: Bool)
    throws(StrategyError)
  {
    guard history.itemCount == catalog.count else {
      throw .failed(
        strategy: strategy,
        message: "the history covers \(history.itemCount) dishes, the catalog \(catalog.count)")
    }
    let encoding = FeatureEncoding(catalog: catalog, profiles: dinerFeatures ? profileList : [])
    do {
      model = try LinearBanditModel(
        kind: kind, lambda: lambda, encoding: encoding, history: history, profiles: profiles,
        factors: factors)
    } catch {
      throw .failed(
        strategy: strategy,
        message: "the ridge system is not positive definite in doubles; raise lambda (now "
          + "\(lambda))")
    }
  }

  /// The fitted model; a strategy scored before `learn` is a programming error.
  func fitted(_ strategy: String) -> LinearBanditModel {
    guard let model else { preconditionFailure("\(strategy): score called before learn") }
    return model
  }

  /// The feature terms of a prediction (`ScorePart` "feature", about the feature's name).
  static func featureTerms(
    _ prediction: LinearBanditModel.Prediction, model: LinearBanditModel, dish: String,
    diner: String
  ) -> [ScorePart] {
    let d = model.d
    let shared = prediction.parts.map { part in
      let name =
        part.feature >= 0
        ? model.encoding.crossName(dish: part.feature / d, diner: part.feature % d)
        : model.encoding.dishPartName(dish, diner: -1 - part.feature)
      return ScorePart("feature", part.value, about: name)
    }
    return shared
      + prediction.dinerParts.map { part in
        ScorePart(
          "feature", part.value, about: model.encoding.dinerPartName(diner, dish: part.feature))
      }
  }
}

extension LinearBanditModel {
  /// What one diner's draws need, computed once for all of them: per dish up to the last
  /// candidate, its expected reward as a function of beta~ (see `draw`).
  ///
  /// With y = A_a^-1 x, the reward of dish a under (beta~, theta~_a) drawn from the posterior
  /// (beta~ from its marginal, theta~_a from its conditional given beta~) is
  ///
  ///     z_a . beta~ + x . theta~_a = sum over f in u_a, g of lambda y_g beta~_(f,g) + y . b_a
  ///                                  + v sqrt(x' A_a^-1 x) e_a
  ///
  /// (x - X_a y = lambda y, as in the variance), one standard normal e_a per dish: x . theta~_a
  /// is Gaussian given beta~, and only it enters the score.
  struct DrawPlan {
    /// Per dish: (compact cross, or -1 - the index of a cross outside S among the diner's,
    /// and its coefficient lambda y_g).
    var terms: [[(index: Int, coefficient: Double)]] = []
    /// Per dish: y . b_a and sqrt(x' A_a^-1 x).
    var constant: [Double] = []
    var spread: [Double] = []
    /// The diner's features.
    var x: [Int32]
    /// Model `personal`: the diner's part, drawn whole once per draw, after the rest.
    var diner: DinerView?
  }

  func plan(x: [Int32], upTo last: Int, diner: DinerView? = nil) -> DrawPlan {
    let d = self.d
    var plan = DrawPlan(x: x, diner: diner)
    for item in 0...last {
      let k = Int(blockOf[item])
      var y = [Double](repeating: 0, count: d)
      var constant = 0.0
      if k >= 0 {
        let block = blocks[k]
        for i in 0..<d {
          var sum = 0.0
          for g in x { sum += block.inverse[i * d + Int(g)] }
          y[i] = sum
          constant += sum * block.b[i]
        }
      } else {
        for g in x { y[Int(g)] = 1 / lambda }
      }
      var terms: [(index: Int, coefficient: Double)] = []
      if kind != .disjoint {
        for f in encoding.itemFeatures[item] {
          for g in 0..<d where y[g] != 0 {
            let c = Int(active[Int(f) * d + g])
            if c >= 0 {
              terms.append((c, lambda * y[g]))
            } else if let gi = x.firstIndex(of: Int32(g)) {
              // Outside S, so g is one of the diner's own features (see `LinearBanditModel`).
              terms.append((-1 - (Int(f) * x.count + gi), lambda * y[g]))
            }
          }
        }
      }
      plan.terms.append(terms)
      plan.constant.append(constant)
      plan.spread.append(x.reduce(0.0) { $0 + y[Int($1)] }.squareRoot())
    }
    return plan
  }

  /// One draw of every dish's expected reward up to the plan's last dish from the posterior
  /// N(fitted, v^2 A^-1), for the plan's diner. Draws from `random`, in this order: one
  /// standard normal per cross in S (beta~ = beta + v L^-T e, S = L L'), one per (dish
  /// feature, diner feature of the diner) for the crosses outside S (their prior,
  /// N(0, v^2 / lambda)), then one per dish (`DrawPlan`). Needs the factors (`factors: true`).
  func draw(_ plan: DrawPlan, v: Double, _ random: inout RandomStream) -> [Double] {
    var betaDraw: [Double] = []
    var loose: [Double] = []
    if kind != .disjoint {
      let k = beta.count
      let e = (0..<k).map { _ in random.nextNormal() }
      let eta = k > 0 ? Dense.solveTransposed(factor: sFactor, e, k) : []
      betaDraw = (0..<k).map { beta[$0] + v * eta[$0] }
      let prior = v / lambda.squareRoot()
      loose = (0..<(encoding.dishCount * plan.x.count)).map { _ in prior * random.nextNormal() }
    }
    var scores = plan.terms.indices.map { a in
      var score = plan.constant[a]
      for term in plan.terms[a] {
        score +=
          term.coefficient * (term.index >= 0 ? betaDraw[term.index] : loose[-1 - term.index])
      }
      return score + v * plan.spread[a] * random.nextNormal()
    }
    if let diner = plan.diner {
      let weights = drawDiner(diner, v: v, &random)
      for a in scores.indices {
        for f in encoding.itemFeatures[a] { scores[a] += weights[Int(f)] }
      }
    }
    return scores
  }
}

extension LinearBanditCore {
  /// The examples' menu of `linucb` and `lints`: two noodle dishes and two fried ones, of which
  /// kake-soba and katsu-curry have no swipes (the cold start).
  static let exampleMenu = [
    "zaru-soba:noodles", "tonkatsu:fried", "katsu-curry:fried", "kake-soba:noodles",
  ]
  /// Their swipes: zaru-soba liked 6 times, tonkatsu passed 6 times.
  static let exampleLikes =
    exampleSwipes("zaru-soba", right: 6, left: 0) + exampleSwipes("tonkatsu", right: 0, left: 6)
}
