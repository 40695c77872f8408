import DeckBase
import DeckCore

/// The part per diner of model `personal`: the diner's own weights phi_u over the dish features
/// u_a (the tastes no diner feature describes: this diner likes noodles, passes on spicy).
///
/// Fitted in two stages: the hybrid to every swipe (as model `hybrid`), then each diner's part,
/// a ridge regression of the diner's own swipes less the hybrid's means on the dish features:
/// phi_u = A_u^-1 sum u_a (r - n * hybrid mean). The hybrid carries what diners share (a dish's
/// appeal, a feature's appeal to every diner with given diets and allergens); the diner's part
/// what is left, the diner's own tastes. It is not the joint ridge solution of the three parts:
/// that one couples every diner's part with every dish the diner swiped (no arrowhead form to
/// solve in one step as Li et al.'s hybrid has), and backfitting towards it needed more than
/// 200 sweeps for 1e-7 on a 12-diner test.
///
/// A diner's part covers the dish features of the dishes the diner swiped (its support); a
/// feature outside it keeps its prior, weight 0 and variance 1 / lambda. Its spread is
/// u^T A_u^-1 u with A_u = lambda I + sum n u_a u_a^T over the diner's records, added to the
/// hybrid's (the covariance between the diner's part and the rest is left out: a documented
/// approximation, exact when the parts share no record).
extension LinearBanditModel {
  struct DinerPart: Sendable {
    /// Dish feature indices, ascending: the features of the dishes the diner swiped.
    var support: [Int32]
    var phi: [Double]
  }

  /// A diner's part ready to score with: the weights by dish feature and the Cholesky factor of
  /// A_u over the support.
  struct DinerView {
    var support: [Int32]
    /// Position in `support` by dish feature, -1 outside it.
    var position: [Int32]
    var phi: [Double]
    var factor: [Double]
  }

  /// A_u (row-major over `support`) from the diner's records.
  static func dinerGram(
    support: [Int32], position: [Int32], records: [(item: Int, shown: Double, right: Double)],
    encoding: FeatureEncoding, lambda: Double
  ) -> (gram: [Double], right: [Double]) {
    let m = support.count
    var gram = [Double](repeating: 0, count: m * m)
    var right = [Double](repeating: 0, count: m)
    for i in 0..<m { gram[i * m + i] = lambda }
    for record in records {
      let index = encoding.itemFeatures[record.item].map { Int(position[Int($0)]) }
      for i in index where i >= 0 {
        right[i] += record.right
        for j in index where j >= 0 { gram[i * m + j] += record.shown }
      }
    }
    return (gram, right)
  }

  /// The support of a diner's records: every dish feature of a dish swiped at least once.
  static func support(
    _ records: [(item: Int, shown: Double, right: Double)], encoding: FeatureEncoding
  ) -> [Int32] {
    var seen = Set<Int32>()
    for record in records where record.shown > 0 {
      seen.formUnion(encoding.itemFeatures[record.item])
    }
    return seen.sorted()
  }

  /// The view of diner `id` from the diner's own history (the records the model learned from).
  func dinerView(id: String, history: UserHistory?) -> DinerView? {
    guard kind == .personal else { return nil }
    let part = diners[IDKey(id)]
    let support = part?.support ?? []
    var position = [Int32](repeating: -1, count: encoding.dishCount)
    for (k, f) in support.enumerated() { position[Int(f)] = Int32(k) }
    var records: [(item: Int, shown: Double, right: Double)] = []
    for record in history?.records ?? [] where record.shown > 0 {
      records.append((Int(record.item), Double(record.shown), Double(record.right)))
    }
    let gram = Self.dinerGram(
      support: support, position: position, records: records, encoding: encoding, lambda: lambda
    ).gram
    let factor = Dense.cholesky(gram, support.count) ?? []
    return DinerView(
      support: support, position: position, phi: part?.phi ?? [], factor: factor)
  }

  /// The diner part's mean, its terms (dish feature, weight) and its variance for one dish.
  func dinerPrediction(_ view: DinerView, item: Int) -> (
    terms: [(feature: Int, value: Double)], mean: Double, variance: Double
  ) {
    let m = view.support.count
    var u = [Double](repeating: 0, count: m)
    var terms: [(feature: Int, value: Double)] = []
    var mean = 0.0
    var outside = 0.0
    for f in encoding.itemFeatures[item] {
      let k = Int(view.position[Int(f)])
      if k >= 0 {
        u[k] = 1
        terms.append((Int(f), view.phi[k]))
        mean += view.phi[k]
      } else {
        outside += 1 / lambda
      }
    }
    var variance = outside
    if m > 0 && !view.factor.isEmpty {
      // u^T A^-1 u = |L^-1 u|^2.
      let y = Dense.forward(factor: view.factor, u, m)
      for value in y { variance += value * value }
    }
    return (terms, mean, variance)
  }

  /// One draw of the diner's whole part, phi + v L^-T e, and of the features outside its support
  /// (prior N(0, v^2 / lambda)), as weights by dish feature.
  func drawDiner(_ view: DinerView, v: Double, _ random: inout RandomStream) -> [Double] {
    let m = view.support.count
    let e = (0..<m).map { _ in random.nextNormal() }
    let eta = m > 0 && !view.factor.isEmpty ? Dense.solveTransposed(factor: view.factor, e, m) : e
    let prior = v / lambda.squareRoot()
    var weights = (0..<encoding.dishCount).map { _ in prior * random.nextNormal() }
    for k in 0..<m { weights[Int(view.support[k])] = view.phi[k] + v * eta[k] }
    return weights
  }
}

extension LinearBanditModel {
  /// The diner parts, each fitted to its swipes less the hybrid's means (see `DinerPart`).
  static func fitDiners(
    stats: Statistics, blockOf: [Int32], blocks: [DishBlock], shared: SharedPart,
    encoding: FeatureEncoding, lambda: Double
  ) -> [IDKey: DinerPart] {
    var position = [Int32](repeating: -1, count: encoding.dishCount)
    var diners: [IDKey: DinerPart] = [:]
    for diner in stats.diners {
      let support = Self.support(diner.records, encoding: encoding)
      for (k, f) in support.enumerated() { position[Int(f)] = Int32(k) }
      let system = Self.dinerGram(
        support: support, position: position, records: diner.records, encoding: encoding,
        lambda: lambda)
      var right = system.right
      let x = stats.groups[diner.group].x
      for record in diner.records {
        let mean = Self.hybridMean(
          x: x, item: record.item, blocks: blocks, blockOf: blockOf, shared: shared,
          encoding: encoding)
        for f in encoding.itemFeatures[record.item] {
          right[Int(position[Int(f)])] -= record.shown * mean
        }
      }
      for f in support { position[Int(f)] = -1 }
      // lambda I + a Gram matrix is positive definite; a factor can only fail on overflow.
      guard let factor = Dense.cholesky(system.gram, support.count) else { continue }
      diners[diner.key] = DinerPart(
        support: support, phi: Dense.solve(factor: factor, right, support.count))
    }
    return diners
  }

  /// The hybrid's mean for diner features x and a dish.
  static func hybridMean(
    x: [Int32], item: Int, blocks: [DishBlock], blockOf: [Int32], shared: SharedPart,
    encoding: FeatureEncoding
  ) -> Double {
    let d = encoding.dinerCount
    var mean = 0.0
    for f in encoding.itemFeatures[item] {
      for g in x {
        let c = shared.active[Int(f) * d + Int(g)]
        if c >= 0 { mean += shared.beta[Int(c)] }
      }
    }
    let k = Int(blockOf[item])
    if k >= 0 { for g in x { mean += blocks[k].theta[Int(g)] } }
    return mean
  }
}
