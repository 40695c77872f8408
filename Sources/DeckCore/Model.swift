/// When a dish can be served. Both parts must allow the date when both are given.
public struct Availability: Sendable, Hashable {
  /// Weekdays the dish is served; nil means every day.
  public var weekdays: Set<Weekday>?
  /// First day served (inclusive), if limited.
  public var from: DeckDate?
  /// Last day served (inclusive), if limited.
  public var until: DeckDate?

  public static let always = Availability()

  public init(weekdays: Set<Weekday>? = nil, from: DeckDate? = nil, until: DeckDate? = nil) {
    self.weekdays = weekdays
    self.from = from
    self.until = until
  }

  public func allows(_ date: DeckDate) -> Bool {
    if let from, date < from { return false }
    if let until, date > until { return false }
    if let weekdays, !weekdays.contains(date.weekday) { return false }
    return true
  }
}

/// One dish on the menu: one card in a deck.
public struct MenuItem: Sendable, Hashable {
  public var id: String
  public var name: String
  public var category: String
  public var tags: [String]
  /// Price in the catalog's currency; nil when not given.
  public var price: Double?
  /// Image asset name used by the apps, if any.
  public var image: String?
  /// Allergens the dish contains (e.g. "egg", "soy", "wheat").
  public var allergens: [String]
  /// Diets the dish satisfies (e.g. "vegetarian", "vegan", "gluten-free").
  public var diets: [String]
  public var availability: Availability

  public init(
    id: String, name: String, category: String, tags: [String] = [], price: Double? = nil,
    image: String? = nil, allergens: [String] = [], diets: [String] = [],
    availability: Availability = .always
  ) {
    self.id = id
    self.name = name
    self.category = category
    self.tags = tags
    self.price = price
    self.image = image
    self.allergens = allergens
    self.diets = diets
    self.availability = availability
  }
}

/// A validated menu: unique non-empty ids, non-empty names and categories, prices >= 0.
///
/// Items keep their catalog order; categories and tags are interned to dense indices so that
/// scoring works on flat arrays. Ids and categories are told apart by their UTF-8 bytes (see
/// `IDKey`): precomposed and decomposed "café" are two dishes, or two categories.
public struct Catalog: Sendable {
  public let items: [MenuItem]
  /// Distinct categories (by UTF-8 bytes) in order of first appearance.
  public let categories: [String]
  /// Distinct tags in order of first appearance.
  public let tags: [String]
  /// Category index of each item.
  public let itemCategory: [Int32]
  /// Tag indices of each item.
  public let itemTags: [[Int32]]
  private let indexByID: [IDKey: Int32]

  public init(items: [MenuItem]) throws(DeckCoreError) {
    var indexByID: [IDKey: Int32] = [:]
    indexByID.reserveCapacity(items.count)
    var categoryIndex: [IDKey: Int32] = [:]
    var tagIndex: [String: Int32] = [:]
    var categories: [String] = []
    var tags: [String] = []
    var itemCategory: [Int32] = []
    var itemTags: [[Int32]] = []
    itemCategory.reserveCapacity(items.count)
    itemTags.reserveCapacity(items.count)
    for (n, item) in items.enumerated() {
      guard !item.id.isEmpty else { throw .invalidCatalog(item: n, message: "empty id") }
      guard !item.name.isEmpty else {
        throw .invalidCatalog(item: n, message: "item '\(item.id)' has an empty name")
      }
      guard !item.category.isEmpty else {
        throw .invalidCatalog(item: n, message: "item '\(item.id)' has an empty category")
      }
      if let price = item.price, !(price.isFinite && price >= 0) {
        throw .invalidCatalog(
          item: n, message: "item '\(item.id)' has price \(price); a price must be 0 or more")
      }
      let key = IDKey(item.id)
      if let first = indexByID[key] {
        throw .invalidCatalog(
          item: n, message: "duplicate id '\(item.id)' (first used by item \(first + 1))")
      }
      if let from = item.availability.from, let until = item.availability.until, until < from {
        throw .invalidCatalog(
          item: n, message: "item '\(item.id)' is available until \(until), before \(from)")
      }
      indexByID[key] = Int32(n)
      itemCategory.append(
        Self.intern(item.category, IDKey(item.category), &categoryIndex, &categories))
      var t: [Int32] = []
      for tag in item.tags where !tag.isEmpty {
        let ti = Self.intern(tag, tag, &tagIndex, &tags)
        if !t.contains(ti) { t.append(ti) }
      }
      itemTags.append(t)
    }
    self.items = items
    self.categories = categories
    self.tags = tags
    self.itemCategory = itemCategory
    self.itemTags = itemTags
    self.indexByID = indexByID
  }

  public var count: Int { items.count }

  /// The dense index of `name` (told apart by `key`): its index in `names`, where a name not
  /// met before is appended.
  private static func intern<Key: Hashable>(
    _ name: String, _ key: Key, _ index: inout [Key: Int32], _ names: inout [String]
  ) -> Int32 {
    if let existing = index[key] { return existing }
    let i = Int32(names.count)
    index[key] = i
    names.append(name)
    return i
  }

  /// The catalog index of an item id: the item whose id has exactly these UTF-8 bytes (no
  /// Unicode normalisation, see `IDKey`), nil when there is none.
  public func index(of id: String) -> Int32? { indexByID[IDKey(id)] }

  public subscript(index: Int32) -> MenuItem { items[Int(index)] }
}

/// A diner. Everything but the id is optional.
public struct UserProfile: Sendable, Hashable {
  public var id: String
  /// Diets the diner follows; a dish must satisfy every one of them (e.g. ["vegetarian"]).
  public var diets: [String]
  /// Allergens the diner must avoid; a dish containing any of them is never shown.
  public var allergens: [String]
  /// Categories the diner does not want to see.
  public var dislikedCategories: [String]

  public init(
    id: String, diets: [String] = [], allergens: [String] = [], dislikedCategories: [String] = []
  ) {
    self.id = id
    self.diets = diets
    self.allergens = allergens
    self.dislikedCategories = dislikedCategories
  }
}

/// One swipe from a log. `at` is wall-clock seconds since 1970-01-01T00:00 in the configured
/// time zone (so `at / 86400` is the local day).
///
/// The model's one event: a decided swipe with its ids as strings, which history, stats and
/// `play` keep. DeckIO adds the readers' zero-copy `RawEvent` and the writers' `LogEvent` (a line
/// that may be a drag); every conversion between them is in DeckIO's `EventConversions.swift`.
public struct SwipeEvent: Sendable, Hashable {
  public var user: String
  public var item: String
  public var swipe: SwipeDirection
  public var at: Int64
  /// 1-based card position in the deck, if logged.
  public var position: Int?
  /// The date of the deck the card was shown in, if logged.
  public var deck: DeckDate?
  /// Probability the ranking had of putting this item at this position, if logged.
  public var propensity: Double?
  /// Probability the ranking had of showing the deck's cards from position 1 up to and
  /// including this one, in that order, if logged (`prefix_propensity`; the slate estimators
  /// need it). At most `propensity`.
  public var prefixPropensity: Double?

  public init(
    user: String, item: String, swipe: SwipeDirection, at: Int64, position: Int? = nil,
    deck: DeckDate? = nil, propensity: Double? = nil, prefixPropensity: Double? = nil
  ) {
    self.user = user
    self.item = item
    self.swipe = swipe
    self.at = at
    self.position = position
    self.deck = deck
    self.propensity = propensity
    self.prefixPropensity = prefixPropensity
  }

  /// The local calendar day of the swipe.
  public var day: DeckDate { DeckDate(daysSinceEpoch: Int32(localDay(seconds: at))) }
}

/// The local day (days since 1970-01-01) of wall-clock seconds since 1970-01-01T00:00 in the
/// configured time zone, rounded down: a second before the epoch is day -1. The one rule for
/// swipes, the event reader's hot path and "today"; inlinable so that path pays no call.
@inlinable
public func localDay(seconds: Int64) -> Int64 {
  let q = seconds / 86_400
  return seconds % 86_400 < 0 ? q - 1 : q
}
