import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

/// How a simulated session ends when nothing makes the diner give up.
package enum SessionMode: String, Sendable, CaseIterable {
  /// Food-menu app: the first right swipe is today's pick and ends the session.
  case pick
  /// Swipeable-cards app: the diner swipes through the whole deck.
  case all
}

/// Every parameter of the simulated population and its sessions, with the defaults used when the
/// config leaves a key out. In the config file these are the members of `"simulation"`, in
/// snake_case (see `SimulationConfig.keys`).
///
/// The model (see `Population` and `Simulator` for the exact formulas):
/// - a diner's true utility for a dish on a day is
///   `appeal[dish] - pickiness + taste[category] + mean(taste[tag] for the dish's tags)
///    - priceSensitivity * (price / referencePrice - 1) - satiationStrength * fullness[category]`;
/// - a card at 1-based position p is swiped right with probability
///   `logistic(utility / temperature) / (1 + attentionDecay * (p - 1))`, else left.
package struct SimulationConfig: Sendable, Equatable {
  // Who opens the app.
  /// `open_probability`: chance that a diner opens the app on a given day (0...1). Default 0.7.
  package var openProbability: Double = 0.7
  /// `mode`: `pick` or `all`. Default `pick`.
  package var mode: SessionMode = .pick

  // Generated diners.
  /// `vegetarian_share`: share of generated diners who are vegetarian (0...1); applies only when
  /// some dish of the catalog has the diet "vegetarian". Default 0.1.
  package var vegetarianShare: Double = 0.1
  /// `allergy_share`: share of generated diners with one allergy (0...1), drawn uniformly from the
  /// allergens that the catalog's dishes name. Default 0.15.
  package var allergyShare: Double = 0.15

  // Tastes.
  /// `pickiness_mean`: mean of the amount subtracted from every utility (higher: fewer right
  /// swipes). Default 1.5.
  package var pickinessMean: Double = 1.5
  /// `pickiness_spread`: standard deviation of pickiness between diners (>= 0). Default 0.5.
  package var pickinessSpread: Double = 0.5
  /// `dish_appeal_spread`: standard deviation of the appeal each dish has for every diner alike
  /// (what popularity can learn; >= 0). Default 0.5.
  package var dishAppealSpread: Double = 0.5
  /// `feature_appeal_spread`: standard deviation of an appeal every diner alike finds in each
  /// category and each tag, added to the appeal of the dishes that have them (what a model of
  /// the dishes' features can learn, and carry to a new dish; >= 0). Default 0 (off).
  package var featureAppealSpread: Double = 0
  /// `category_taste_spread`: standard deviation of a diner's taste per category (>= 0).
  /// Default 1.0.
  package var categoryTasteSpread: Double = 1.0
  /// `tag_taste_spread`: standard deviation of a diner's taste per tag (>= 0). Default 0.7.
  package var tagTasteSpread: Double = 0.7
  /// `price_sensitivity_mean`: mean price sensitivity (>= 0). Default 1.0.
  package var priceSensitivityMean: Double = 1.0
  /// `price_sensitivity_spread`: spread of price sensitivity between diners, the standard
  /// deviation of its logarithm (log-normal with the given mean; >= 0). Default 0.5.
  package var priceSensitivitySpread: Double = 0.5

  // Satiation.
  /// `satiation_strength`: utility lost per unit of fullness of a category (>= 0; 0 = off).
  /// Default 1.5.
  package var satiationStrength: Double = 1.5
  /// `satiation_half_life_days`: days for fullness of a category to halve (>= 0; 0 = gone the
  /// next day). Default 2.
  package var satiationHalfLifeDays: Double = 2

  // Attention, patience, choice.
  /// `attention_decay`: how fast attention falls with position (>= 0; 0 = no position effect).
  /// Default 0.1.
  package var attentionDecay: Double = 0.1
  /// `patience`: the diner gives up after this many left swipes in a row (whole number >= 1;
  /// `null` = no limit). Default 6.
  package var patience: Int? = 6
  /// `give_up_probability`: after each left swipe, chance that the diner gives up (0...1).
  /// Default 0.05.
  package var giveUpProbability: Double = 0.05
  /// `temperature`: divides the utility before the logistic (> 0; higher = more random).
  /// Default 1.
  package var temperature: Double = 1

  // Clock.
  /// `session_start_minute`: earliest session start, minutes after local midnight (0...1380).
  /// Default 690 (11:30).
  package var sessionStartMinute: Int = 690
  /// `session_window_minutes`: sessions start uniformly within this many minutes after
  /// `session_start_minute`; the two add up to at most 1380 (23:00), so that a session ends on
  /// the day of its deck. Default 120.
  package var sessionWindowMinutes: Int = 120

  // Raw drags.
  /// `drags`: log each swipe as the raw drag (dx, width) instead of `swipe`. Default false.
  package var drags: Bool = false
  /// `card_width`: card width in points for drags (> 0). Default 390.
  package var cardWidth: Double = 390
  /// `hesitation_probability`: with drags, chance that a card gets a drag that springs back
  /// before it is swiped (0...1). Default 0.02.
  package var hesitationProbability: Double = 0.02
  /// The rule drags must obey; not a key of `"simulation"`: set it from the config's top-level
  /// `drag_rule`, the rule the event reader uses. Default `SwipeRule.foodMenu`.
  package var dragRule: SwipeRule = .foodMenu

  package init() {}

  /// The keys of the `"simulation"` object, in documentation order.
  package static let keys: [String] = [
    "open_probability", "mode", "vegetarian_share", "allergy_share", "pickiness_mean",
    "pickiness_spread", "dish_appeal_spread", "feature_appeal_spread", "category_taste_spread",
    "tag_taste_spread",
    "price_sensitivity_mean", "price_sensitivity_spread", "satiation_strength",
    "satiation_half_life_days", "attention_decay", "patience", "give_up_probability",
    "temperature", "session_start_minute", "session_window_minutes", "drags", "card_width",
    "hesitation_probability",
  ]

  /// The latest minute a session may start (23:00).
  package static let latestStartMinute = 1380

  /// Reads the `"simulation"` object of a config. Absent keys keep their defaults. An unknown key
  /// is an error at the key with a did-you-mean suggestion; an impossible value (a probability
  /// outside 0...1, a negative spread or half-life, a temperature of 0) is an error naming the key,
  /// at the value's file:line:column. `file` names the config for values that carry no file.
  package static func parse(_ value: JSONValue, file: String) throws(DeckIOError)
    -> SimulationConfig
  {
    let value = value.naming(file)
    let object = try value.requireObject("'simulation'")
    try value.rejectUnknownKeys(allowed: keys, in: "'simulation'")
    var c = SimulationConfig()
    for member in object.members {
      let v = member.value.naming(file)
      let key = member.key
      switch key {
      case "open_probability": c.openProbability = try probability(v, key)
      case "mode":
        let text = try v.requireString(name(key))
        guard let mode = SessionMode(rawValue: text) else {
          let names = SessionMode.allCases.map(\.rawValue)
          throw v.error(
            "\(name(key)) is '\(text)'\(didYouMean(text, names)); use 'pick' (the first right "
              + "swipe ends the session) or 'all' (swipe through the whole deck)")
        }
        c.mode = mode
      case "vegetarian_share": c.vegetarianShare = try probability(v, key)
      case "allergy_share": c.allergyShare = try probability(v, key)
      case "pickiness_mean": c.pickinessMean = try number(v, key)
      case "pickiness_spread": c.pickinessSpread = try nonNegative(v, key)
      case "dish_appeal_spread": c.dishAppealSpread = try nonNegative(v, key)
      case "feature_appeal_spread": c.featureAppealSpread = try nonNegative(v, key)
      case "category_taste_spread": c.categoryTasteSpread = try nonNegative(v, key)
      case "tag_taste_spread": c.tagTasteSpread = try nonNegative(v, key)
      case "price_sensitivity_mean": c.priceSensitivityMean = try nonNegative(v, key)
      case "price_sensitivity_spread":
        // The spread of a log-normal: exp(spread * z) must stay finite.
        let d = try nonNegative(v, key)
        guard d <= 5 else { throw outOfRange(v, key, give: "a number from 0 to 5") }
        c.priceSensitivitySpread = d
      case "satiation_strength": c.satiationStrength = try nonNegative(v, key)
      case "satiation_half_life_days": c.satiationHalfLifeDays = try nonNegative(v, key)
      case "attention_decay": c.attentionDecay = try nonNegative(v, key)
      case "patience":
        c.patience = v.isNull ? nil : try wholeNumber(v, key, in: 1...Int(Int32.max))
      case "give_up_probability": c.giveUpProbability = try probability(v, key)
      case "temperature":
        let t = try number(v, key)
        guard t >= 0.001 else { throw outOfRange(v, key, give: "a number 0.001 or more") }
        c.temperature = t
      case "session_start_minute":
        c.sessionStartMinute = try wholeNumber(v, key, in: 0...latestStartMinute)
      case "session_window_minutes":
        c.sessionWindowMinutes = try wholeNumber(v, key, in: 0...latestStartMinute)
      case "drags": c.drags = try v.requireBool(name(key))
      case "card_width":
        let w = try number(v, key)
        guard w > 0 else { throw outOfRange(v, key, give: "a number of points above 0") }
        c.cardWidth = w
      case "hesitation_probability": c.hesitationProbability = try probability(v, key)
      default:
        throw v.error("unknown key '\(key)'")  // rejectUnknownKeys has already caught it
      }
    }
    if c.sessionStartMinute + c.sessionWindowMinutes > latestStartMinute {
      let at = object["session_window_minutes"] ?? object["session_start_minute"] ?? value
      throw at.error(
        "\(name("session_start_minute")) + \(name("session_window_minutes")) is "
          + "\(c.sessionStartMinute + c.sessionWindowMinutes); keep it at most \(latestStartMinute) "
          + "(23:00) so that sessions end on the day of their deck")
    }
    return c
  }

  /// How messages name a key: `'simulation.patience'`, as `'deck.size'` is named.
  static func name(_ key: String) -> String { "'simulation.\(key)'" }

  /// "'simulation.give_up_probability': '2' is out of range: give a probability from 0 to 1",
  /// at `v` (the number as the file writes it).
  private static func outOfRange(_ v: JSONValue, _ key: String, give expected: String)
    -> DeckIOError
  {
    v.error("\(name(key)): " + RangeText.outOfRange(v.numberText ?? "?", give: expected))
  }

  /// Utilities are sums of these parameters times small factors; beyond this magnitude they
  /// stop being meaningful and can overflow to infinity.
  static let maximumMagnitude = 1_000_000.0

  private static func number(_ v: JSONValue, _ key: String) throws(DeckIOError) -> Double {
    let d = try v.requireNumber(name(key))
    guard d.isFinite, abs(d) <= maximumMagnitude else {
      throw outOfRange(v, key, give: "a number from -1000000 to 1000000")
    }
    return d
  }

  private static func probability(_ v: JSONValue, _ key: String) throws(DeckIOError) -> Double {
    let d = try number(v, key)
    guard d >= 0 && d <= 1 else { throw outOfRange(v, key, give: "a probability from 0 to 1") }
    return d
  }

  private static func nonNegative(_ v: JSONValue, _ key: String) throws(DeckIOError) -> Double {
    let d = try number(v, key)
    guard d >= 0 else { throw outOfRange(v, key, give: "a number 0 or more") }
    return d
  }

  /// A whole number in any form JSON writes (`1e3` is 1000); one beyond `range`, whatever its
  /// size (`1e30`), is out of range, with the range of this key.
  private static func wholeNumber(_ v: JSONValue, _ key: String, in range: ClosedRange<Int>)
    throws(DeckIOError) -> Int
  {
    _ = try v.requireNumber(name(key))
    let text = v.numberText ?? "?"
    let expected = RangeText.span(
      "a whole number", from: "\(range.lowerBound)", to: "\(range.upperBound)")
    switch RangeText.whole(text, as: Int.self) {
    case .value(let n) where range.contains(n): return n
    case .value, .outOfRange: throw outOfRange(v, key, give: expected)
    case .notWhole:
      throw v.error("\(name(key)): " + RangeText.not("a whole number", text, give: expected))
    }
  }
}
