import DeckCore

/// One synthetic diner: a profile (diet, allergens, disliked categories) that the deck rules
/// see, and hidden tastes that only the simulation (and the oracle) see.
package struct Diner: Sendable, Equatable {
  package let profile: UserProfile
  /// Subtracted from every utility: pickier diners swipe right less.
  package let pickiness: Double
  /// Taste per catalog category (indexed like `Catalog.categories`).
  package let categoryTaste: [Double]
  /// Taste per catalog tag (indexed like `Catalog.tags`).
  package let tagTaste: [Double]
  /// How much a price above the reference price lowers the utility (>= 0).
  package let priceSensitivity: Double

  package var id: String { profile.id }
}

/// A seeded population of synthetic diners over a catalog.
///
/// Every diner's hidden tastes come from its own random stream, derived from (seed, "sim-diner",
/// diner id), so a diner's tastes do not depend on the size of the population or on the other
/// diners. With z a standard normal draw (Irwin-Hall, see `SimulationMath.normal`):
/// - `pickiness = pickiness_mean + pickiness_spread * z`
/// - `categoryTaste[c] = category_taste_spread * z`, one draw per category in catalog order
/// - `tagTaste[t] = tag_taste_spread * z`, one draw per tag in catalog order
/// - `priceSensitivity = price_sensitivity_mean * exp(s * z - s^2 / 2)` with
///   s = `price_sensitivity_spread` (log-normal, mean `price_sensitivity_mean`)
///
/// and, for every diner, the dish's shared appeal `appeal[i] = dish_appeal_spread * z` (one stream
/// for the catalog, derived from (seed, "sim-dishes")), plus, with `feature_appeal_spread` f > 0,
/// the appeal of its features: `f * z` per category and per tag (in catalog order, from a stream
/// derived from (seed, "sim-features")), the dish's category's plus the mean of its tags'.
package struct Population: Sendable {
  package let catalog: Catalog
  package let config: SimulationConfig
  package let seed: UInt64
  package let diners: [Diner]
  /// Appeal of each catalog item, the same for every diner.
  package let dishAppeal: [Double]
  /// The mean price of the dishes that have one; nil when none has a price (no price term).
  package let referencePrice: Double?
  private let indexByID: [IDKey: Int]

  /// `count` generated diners `s00001`, `s00002`, ... (zero-padded to 5 digits, or more when
  /// `count` needs more). Restrictions: with probability `vegetarian_share` a diner has the diet
  /// "vegetarian" (only when some dish has that diet); with probability `allergy_share` one
  /// allergen, drawn uniformly from the allergens the catalog's dishes name (in byte order).
  package init(catalog: Catalog, count: Int, config: SimulationConfig, seed: UInt64) {
    precondition(count >= 0, "a population cannot have a negative size")
    let hasVegetarian = catalog.items.contains { $0.diets.contains("vegetarian") }
    let allergens = Array(Set(catalog.items.flatMap(\.allergens))).sorted {
      $0.utf8.lexicographicallyPrecedes($1.utf8)
    }
    var profiles: [UserProfile] = []
    profiles.reserveCapacity(count)
    for n in 0..<count {
      let id = Population.dinerID(n + 1, of: count)
      var stream = Population.stream(seed: seed, purpose: "sim-restrictions", user: id)
      var profile = UserProfile(id: id)
      let vegetarian = stream.nextDouble() < config.vegetarianShare
      let allergic = stream.nextDouble() < config.allergyShare
      let draw = stream.next()
      if vegetarian && hasVegetarian { profile.diets = ["vegetarian"] }
      if allergic && !allergens.isEmpty {
        profile.allergens = [allergens[Int(draw % UInt64(allergens.count))]]
      }
      profiles.append(profile)
    }
    self.init(catalog: catalog, users: profiles, config: config, seed: seed)
  }

  /// Diners for the given profiles (their diets, allergens and disliked categories are kept),
  /// each with hidden tastes drawn as for generated diners.
  package init(catalog: Catalog, users: [UserProfile], config: SimulationConfig, seed: UInt64) {
    self.catalog = catalog
    self.config = config
    self.seed = seed
    var dishes = Population.stream(seed: seed, purpose: "sim-dishes", user: "")
    var appeal = catalog.items.map { _ in
      config.dishAppealSpread * SimulationMath.normal(&dishes)
    }
    if config.featureAppealSpread > 0 {
      var features = Population.stream(seed: seed, purpose: "sim-features", user: "")
      let f = config.featureAppealSpread
      let category = catalog.categories.map { _ in f * SimulationMath.normal(&features) }
      let tag = catalog.tags.map { _ in f * SimulationMath.normal(&features) }
      for i in appeal.indices {
        appeal[i] += category[Int(catalog.itemCategory[i])]
        let tags = catalog.itemTags[i]
        if !tags.isEmpty { appeal[i] += tags.reduce(0) { $0 + tag[Int($1)] } / Double(tags.count) }
      }
    }
    dishAppeal = appeal
    let prices = catalog.items.compactMap(\.price)
    let mean = prices.isEmpty ? 0 : prices.reduce(0, +) / Double(prices.count)
    referencePrice = mean > 0 ? mean : nil
    var index: [IDKey: Int] = [:]
    var diners: [Diner] = []
    diners.reserveCapacity(users.count)
    let s = config.priceSensitivitySpread
    for profile in users {
      var stream = Population.stream(seed: seed, purpose: "sim-diner", user: profile.id)
      let pickiness = config.pickinessMean + config.pickinessSpread * SimulationMath.normal(&stream)
      let category = catalog.categories.map { _ in
        config.categoryTasteSpread * SimulationMath.normal(&stream)
      }
      let tag = catalog.tags.map { _ in config.tagTasteSpread * SimulationMath.normal(&stream) }
      let price =
        config.priceSensitivityMean
        * SimulationMath.exp(s * SimulationMath.normal(&stream) - s * s / 2)
      if index[IDKey(profile.id)] == nil { index[IDKey(profile.id)] = diners.count }
      diners.append(
        Diner(
          profile: profile, pickiness: pickiness, categoryTaste: category, tagTaste: tag,
          priceSensitivity: price))
    }
    self.diners = diners
    self.indexByID = index
  }

  package var count: Int { diners.count }

  /// The id of the n-th (1-based) of `count` generated diners: "s" and n zero-padded to 5 digits,
  /// or to the digits of `count` when it has more.
  package static func dinerID(_ n: Int, of count: Int) -> String {
    let digits = String(n)
    let width = max(5, String(count).count)
    return "s" + String(repeating: "0", count: max(0, width - digits.count)) + digits
  }

  /// The index of a diner id, by its bytes (`IDKey`; the first, when ids repeat).
  package func index(of id: String) -> Int? { indexByID[IDKey(id)] }

  /// The diner's utility for a catalog item before satiation:
  /// `appeal[item] - pickiness + categoryTaste[category] + mean(tagTaste[tag] over the item's tags)
  ///  - priceSensitivity * (price / referencePrice - 1)` (no tag term without tags, no price term
  /// without a price or a reference price).
  @inline(__always)
  package func baseUtility(diner d: Int, item: Int32) -> Double {
    let diner = diners[d]
    let i = Int(item)
    var u = dishAppeal[i] - diner.pickiness + diner.categoryTaste[Int(catalog.itemCategory[i])]
    let tags = catalog.itemTags[i]
    if !tags.isEmpty {
      var sum = 0.0
      for t in tags { sum += diner.tagTaste[Int(t)] }
      u += sum / Double(tags.count)
    }
    if let reference = referencePrice, let price = catalog.items[i].price {
      u -= diner.priceSensitivity * (price / reference - 1)
    }
    return u
  }

  /// The stream for one purpose of one diner (or of the whole catalog, with user ""), derived from
  /// (seed, purpose, user); day-independent draws use day 0.
  static func stream(seed: UInt64, purpose: String, user: String, day: DeckDate? = nil)
    -> RandomStream
  {
    RandomStream(
      seed: seed, date: day ?? DeckDate(daysSinceEpoch: 0), user: user, purpose: purpose)
  }
}
