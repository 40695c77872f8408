import DeckBase
import DeckCore

/// The one encoding of dishes and diners as feature vectors (`linucb`, `lints`, their
/// explanations, and the learned strategies' cold start). Every feature is an indicator (0 or
/// 1) with a name; the names are sorted by their UTF-8 bytes (never by a hash), after an
/// intercept that is always first and always 1.
///
/// Dish features u (from the catalog as it is), index 0 the intercept "dish":
///   - `category=C`            the dish's category
///   - `tag=T`                 each of its tags
///   - `price.log2=k`          its price in [2^k, 2^(k+1)) (`price.log2=zero` for a price of 0;
///                             no feature when the catalog gives none). Log-2 bands, not the
///                             raw price: a bandit's linear score over a raw price would make a
///                             dish twice as dear twice as (un)liked, and bands learn any shape;
///                             fixed bands, not quantiles of the catalog, so that adding a dish
///                             never moves another dish into a different band (the encoding of
///                             a dish depends on the dish alone).
///   - `allergen=A`, `diet=D`  each allergen it contains, each diet it satisfies
///   - `weekday=mon` ...       each weekday it is offered on, when the catalog limits them
///                             (none for a dish served every day)
///
/// Diner features x (from the users file), index 0 the intercept "diner":
///   - `diner.diet=D`, `diner.allergen=A`, `diner.dislikes=C` for each diet, allergen and
///     disliked category of the profile, over the values that the profiles given to the encoding
///     use (a value no known profile uses has no feature and is left out).
///
/// The shared part of the hybrid model is over the crosses z = u (x) x, the index `f * d + g`
/// for dish feature f and diner feature g (d diner features), named:
///   - "intercept" (both intercepts), the dish feature's name alone when g is the intercept
///     ("category=noodles"), the diner feature's alone when f is ("diner.diet=vegan"), else
///     both joined by " & " ("tag=spicy & diner.diet=vegan").
/// Crosses are never stored per (diner, dish) pair: a dish keeps its few dish features, a
/// diner its few diner features, and a cross is computed when it is needed.
package struct FeatureEncoding: Sendable, Equatable {
  /// Dish feature names, index 0 "dish" (the intercept), then by bytes.
  package let dishNames: [String]
  /// Diner feature names, index 0 "diner" (the intercept), then by bytes.
  package let dinerNames: [String]
  /// Per catalog item: its dish feature indices, ascending (0 first).
  package let itemFeatures: [[Int32]]
  /// Per catalog item: its id (for the names of the per-dish part).
  package let itemIDs: [String]
  /// Diner feature index by name (exact bytes).
  private let dinerIndex: [IDKey: Int32]

  package static let dishIntercept = "dish"
  package static let dinerIntercept = "diner"

  /// The encoding of `catalog`'s dishes and of diners with the values `profiles` use.
  package init(catalog: Catalog, profiles: [UserProfile]) {
    var perItem: [[String]] = []
    perItem.reserveCapacity(catalog.count)
    var all: [IDKey: String] = [:]
    for item in catalog.items {
      let names = Self.dishFeatureNames(item)
      for name in names { all[IDKey(name)] = name }
      perItem.append(names)
    }
    itemIDs = catalog.items.map(\.id)
    let sortedDish = all.keys.sorted().map(\.string)
    dishNames = [Self.dishIntercept] + sortedDish
    var dishIndex: [IDKey: Int32] = [:]
    for (k, name) in dishNames.enumerated() { dishIndex[IDKey(name)] = Int32(k) }
    // The intercept's name cannot collide: every other name has a '='.
    itemFeatures = perItem.map { names in
      [0] + Set(names.map { dishIndex[IDKey($0)]! }).sorted()
    }
    var diner: [IDKey: String] = [:]
    for profile in profiles {
      for name in Self.dinerFeatureNames(profile) { diner[IDKey(name)] = name }
    }
    dinerNames = [Self.dinerIntercept] + diner.keys.sorted().map(\.string)
    var dinerIndex: [IDKey: Int32] = [:]
    for (k, name) in dinerNames.enumerated() { dinerIndex[IDKey(name)] = Int32(k) }
    self.dinerIndex = dinerIndex
  }

  /// p: the number of dish features, the intercept included.
  package var dishCount: Int { dishNames.count }
  /// d: the number of diner features, the intercept included.
  package var dinerCount: Int { dinerNames.count }

  /// The diner feature indices of a profile, ascending (0, the intercept, first); values no
  /// profile given to the encoding used are left out.
  package func diner(_ profile: UserProfile) -> [Int32] {
    var out: Set<Int32> = [0]
    for name in Self.dinerFeatureNames(profile) {
      if let k = dinerIndex[IDKey(name)] { out.insert(k) }
    }
    return out.sorted()
  }

  /// The name of cross (f, g) (see the type's description).
  package func crossName(dish f: Int, diner g: Int) -> String {
    switch (f, g) {
    case (0, 0): return "intercept"
    case (0, _): return dinerNames[g]
    case (_, 0): return dishNames[f]
    default: return dishNames[f] + " & " + dinerNames[g]
    }
  }

  /// The name of the per-dish feature g of dish `id` (the disjoint part).
  package func dishPartName(_ id: String, diner g: Int) -> String {
    g == 0 ? "dish=" + id : "dish=" + id + " & " + dinerNames[g]
  }

  /// The name of dish feature f in the part of diner `id` (model `personal`).
  package func dinerPartName(_ id: String, dish f: Int) -> String {
    f == 0 ? "diner=" + id : "diner=" + id + " & " + dishNames[f]
  }

  /// A dish's feature names (the intercept aside), unsorted, possibly repeated.
  static func dishFeatureNames(_ item: MenuItem) -> [String] {
    var names = ["category=" + item.category]
    names += item.tags.filter { !$0.isEmpty }.map { "tag=" + $0 }
    if let price = item.price { names.append("price.log2=" + priceBand(price)) }
    names += item.allergens.map { "allergen=" + $0 }
    names += item.diets.map { "diet=" + $0 }
    if let days = item.availability.weekdays {
      names += days.sorted().map { "weekday=" + $0.short }
    }
    return names
  }

  /// The log-2 band of a price: "k" for a price in [2^k, 2^(k+1)), "zero" for 0.
  static func priceBand(_ price: Double) -> String {
    guard price > 0 else { return "zero" }
    return String(Int(log2(price).rounded(.down)))
  }

  /// A diner's feature names (the intercept aside), unsorted, possibly repeated.
  static func dinerFeatureNames(_ profile: UserProfile) -> [String] {
    profile.diets.map { "diner.diet=" + $0 } + profile.allergens.map { "diner.allergen=" + $0 }
      + profile.dislikedCategories.map { "diner.dislikes=" + $0 }
  }
}
