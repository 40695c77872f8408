import DeckBase
import DeckCore
import DeckIO

/// The config's `rules` section: the restaurant's rules (`RestaurantRule`), each an object with
/// one action (`"pin": position`, `"boost": factor`, `"bury": factor`, `"hide": true`), one
/// target (`"dish"`, `"category"` or `"tag"`), and optionally `"diners"`, `"valid_from"`,
/// `"valid_until"` (YYYY-MM-DD in the config's time zone), `"weekdays"` and `"name"`.
/// `MenuDeckConfig.parse` reads it into `rules.restaurantRules` (an included file cannot hold it);
/// `Inputs.deckBuilder` and `validate` place the catalog's errors with `error(_:catalog:)`.
package struct RestaurantRulesConfig: Sendable {
  package var rules: [RestaurantRule] = []
  /// Per rule, where each of its fields is written ("" for the rule's object).
  package var locations: [[String: SourceLocation]] = []

  package static let actionKeys = ["pin", "boost", "bury", "hide"]
  package static let targetKeys = ["dish", "category", "tag"]
  package static let keys =
    actionKeys + targetKeys + ["diners", "valid_from", "valid_until", "weekdays", "name"]

  package init() {}

  /// The rules of a `rules` array, each checked alone (`RestaurantRule.validate`), with errors
  /// at the field at fault.
  package static func parse(_ value: JSONValue) throws(DeckIOError) -> RestaurantRulesConfig {
    var out = RestaurantRulesConfig()
    for (index, v) in try value.requireArray(field: "rules").enumerated() {
      let what = "rule \(index + 1)"
      _ = try v.requireObject(what)
      try v.rejectUnknownKeys(allowed: keys, in: what)
      var at: [String: SourceLocation] = ["": v.location]
      for key in keys { if let f = v[key] { at[key] = f.location } }
      var rule = RestaurantRule(try action(v, what), try target(v, what))
      if try v.optionalValue(at: "diners") != nil { rule.diners = try v.stringArray(at: "diners") }
      rule.validFrom = try date(v, "valid_from")
      rule.validUntil = try date(v, "valid_until")
      if let days = try v.optionalArray(at: "weekdays") {
        var set = Set<Weekday>()
        for d in days {
          let name = try d.requireString(entryOf: "weekdays")
          guard let day = Weekday(name: name) else {
            throw d.error(
              "unknown weekday '\(name)'\(didYouMean(name, Weekday.allCases.map(\.name)))",
              field: "weekdays")
          }
          set.insert(day)
        }
        rule.weekdays = set
      }
      rule.name = try v.optionalString(at: "name")
      out.rules.append(rule)
      out.locations.append(at)
      do {
        try rule.validate(index: index)
      } catch {
        throw out.error(error, catalog: nil)
      }
    }
    return out
  }

  /// The one key of `keys` that `v` has, and its value; an error that lists them (and those
  /// given) when it has none or several.
  private static func exactlyOne(of keys: [String], in v: JSONValue, _ needs: String)
    throws(DeckIOError) -> (String, JSONValue)
  {
    let given = keys.filter { v[$0] != nil }
    guard given.count == 1, let key = given.first, let value = v[key] else {
      throw v.error(
        needs + keys.joined(separator: ", ")
          + (given.isEmpty ? "" : "; it has " + given.joined(separator: ", ")))
    }
    return (key, value)
  }

  /// Exactly one of the action keys.
  private static func action(_ v: JSONValue, _ what: String) throws(DeckIOError)
    -> RestaurantRule.Action
  {
    let (key, a) = try exactlyOne(of: actionKeys, in: v, "\(what) needs exactly one action of ")
    switch key {
    case "pin":
      return .pin(position: try wholeNumber(a, "pin", in: 1...DeckRules.maxSize))
    case "boost":
      return .boost(factor: try a.requireNumber(field: "boost"))
    case "bury":
      return .bury(factor: try a.requireNumber(field: "bury"))
    default:
      guard try a.requireBool(field: "hide") else {
        throw a.error("give true (leave the rule out to not hide)", field: "hide")
      }
      return .hide
    }
  }

  /// Exactly one of the target keys.
  private static func target(_ v: JSONValue, _ what: String) throws(DeckIOError)
    -> RestaurantRule.Target
  {
    let (key, t) = try exactlyOne(of: targetKeys, in: v, "\(what) needs exactly one of ")
    let name = try t.requireString(field: key)
    switch key {
    case "dish": return .dish(name)
    case "category": return .category(name)
    default: return .tag(name)
    }
  }

  private static func date(_ v: JSONValue, _ key: String) throws(DeckIOError) -> DeckDate? {
    guard let text = try v.optionalString(at: key) else { return nil }
    guard let date = DeckDate.parse(text) else {
      throw v[key]!.error("'\(text)' is not a date; give YYYY-MM-DD", field: key)
    }
    return date
  }

  /// A deck core error about one of these rules (from `RestaurantRule.validate` or
  /// `DeckBuilder`) at the place its field is written, with a did-you-mean from `catalog` for
  /// an unknown dish, category or tag; nil for another error.
  package func error(_ error: DeckCoreError, catalog: Catalog?) -> DeckIOError {
    guard case .invalidRestaurantRule(let index, let field, let problem) = error,
      locations.indices.contains(index)
    else { return .invalid(path: "rules", message: error.description) }
    let at = locations[index]
    var location = at[field] ?? at[""]!
    location.field = field
    var hint = ""
    if let catalog {
      switch problem {
      case .unknownDish(let v): hint = didYouMean(v, catalog.items.map(\.id))
      case .unknownCategory(let v): hint = didYouMean(v, catalog.categories)
      case .unknownTag(let v): hint = didYouMean(v, catalog.tags)
      default: break
      }
    }
    return .malformed(location, message: "rule \(index + 1): \(problem)\(hint)")
  }
}
