import DeckCore
import DeckStrategies

/// The hidden truth of a simulation: each diner's utility for each dish on each day, including
/// satiation from what the diner ate before.
///
/// Satiation: every pick adds 1 to the diner's fullness for the pick's category; fullness halves
/// every `satiation_half_life_days` days (a half-life of 0 empties it by the next day). On day d,
///
///     fullness[c](d) = sum over earlier picks of category c on day t < d of 2^(-(d - t) / halfLife)
///     utility(dish, d) = baseUtility(dish) - satiation_strength * fullness[category of dish](d)
///
/// where `baseUtility` is `Population.baseUtility(diner:item:)`.
package final class GroundTruth {
  package let population: Population
  private let categories: Int
  /// Fullness per (diner, category) as of the diner's last meal day.
  private var fullness: [Double]
  /// Per diner, the day of the last pick (`noMeal` before the first): a flat array of days, as
  /// `utility` reads it once per candidate.
  private var lastMeal: [Int32]
  /// "No pick yet" in `lastMeal`: below every supported day.
  private static let noMeal = Int32.min
  /// 2^(-days / halfLife) for days 0..<count, filled as needed.
  private var decay: [Double] = [1]

  package init(population: Population) {
    self.population = population
    categories = population.catalog.categories.count
    fullness = Array(repeating: 0, count: population.count * categories)
    lastMeal = Array(repeating: Self.noMeal, count: population.count)
  }

  /// Forgets every meal (a new run starts hungry).
  package func reset() {
    for k in fullness.indices { fullness[k] = 0 }
    for k in lastMeal.indices { lastMeal[k] = Self.noMeal }
  }

  /// The diner's fullness for a category on `day` (days since 1970-01-01), from picks before it.
  package func fullness(diner d: Int, category c: Int, day: Int32) -> Double {
    let last = lastMeal[d]
    guard last != Self.noMeal else { return 0 }
    let f = fullness[d * categories + c]
    return f == 0 ? 0 : f * decayFactor(Int(day) - Int(last))
  }

  /// The true utility of `item` for diner `d` on `day`.
  @inline(__always)
  package func utility(diner d: Int, item: Int32, day: Int32) -> Double {
    let base = population.baseUtility(diner: d, item: item)
    let strength = population.config.satiationStrength
    guard strength > 0 else { return base }
    let c = Int(population.catalog.itemCategory[Int(item)])
    return base - strength * fullness(diner: d, category: c, day: day)
  }

  /// Records that diner `d` ate a dish of category `c` on `day`.
  func eat(diner d: Int, category c: Int, day: Int32) {
    let last = lastMeal[d]
    if last != Self.noMeal && last != day {
      let factor = decayFactor(Int(day) - Int(last))
      for k in (d * categories)..<((d + 1) * categories) { fullness[k] *= factor }
    }
    fullness[d * categories + c] += 1
    lastMeal[d] = day
  }

  private func decayFactor(_ days: Int) -> Double {
    if days <= 0 { return 1 }
    let halfLife = population.config.satiationHalfLifeDays
    if days < decay.count { return decay[days] }
    guard days <= 4096 else { return SimulationMath.halfLifeDecay(days: days, halfLife: halfLife) }
    while decay.count <= days {
      decay.append(SimulationMath.halfLifeDecay(days: decay.count, halfLife: halfLife))
    }
    return decay[days]
  }
}

/// Scores each candidate by the diner's hidden true utility on the deck date: the best any
/// strategy could do, and the upper bound the stats compare against. Not a built-in (it needs the
/// simulation's hidden state): make it with `Simulator.makeOracle()`.
package final class OracleStrategy: RankingStrategy {
  package static let description = StrategyDescription(
    identifier: "oracle",
    summary: "the simulated diners' hidden true utility (simulation only; the upper bound)")

  package var description: StrategyDescription { OracleStrategy.description }
  package let truth: GroundTruth

  package init(truth: GroundTruth) {
    self.truth = truth
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {}

  package func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
    var out: [Scores] = []
    out.reserveCapacity(batch.count)
    for context in batch {
      guard let d = truth.population.index(of: context.user.id) else {
        throw .failed(
          strategy: "oracle",
          message: "user '\(context.user.id)' is not in the simulated population")
      }
      let day = context.date.daysSinceEpoch
      out.append(Scores(context.candidates.map { truth.utility(diner: d, item: $0, day: day) }))
    }
    return out
  }
}
