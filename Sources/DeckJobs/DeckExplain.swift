import DeckBase
import DeckCore
import DeckStrategies

/// The words and JSON of `deck --explain`, in one place for every output that shows an
/// explanation: the deck document's `explanation` objects, the JSON Lines, CSV and table
/// formats (`DeckExplainWriter`), and `play`'s `?` key.
package struct DeckExplainText: Sendable {
  package let catalog: Catalog
  package let rules: DeckRules

  package init(catalog: Catalog, rules: DeckRules) {
    self.catalog = catalog
    self.rules = rules
  }

  /// The word for a rule in the outputs (docs/deck-building.md, "Why this card is here").
  package static func kind(_ rule: TraceReason.Rule) -> String {
    switch rule {
    case .pinned: return "pinned"
    case .restaurant(let a):
      switch a.effect {
      case .boosted: return "boost"
      case .buried: return "bury"
      case .pinned: return "pin"
      case .hidden: return "hide"
      }
    case .recentlyShown: return "recently_shown"
    case .categoryCap: return "category_cap"
    case .spacing: return "spacing"
    }
  }

  /// The word of a displaced dish with no rule of its own.
  package static let outranked = "outranked"

  /// The word for a reason a dish was held back.
  package static func kind(_ reason: HeldBackDish.Reason) -> String {
    switch reason {
    case .diet: return "diet"
    case .allergen: return "allergen"
    case .dislikedCategory: return "disliked_category"
    case .recentlyPicked: return "recently_picked"
    case .cooldown: return "cooldown"
    case .hidden: return "hide"
    }
  }

  /// "rule 2" or "rule 2 'lunch special'" (1-based, as in the config's messages).
  package func ruleLabel(_ index: Int) -> String {
    rules.restaurantRules.indices.contains(index)
      ? rules.restaurantRules[index].shortLabel(index: index) : "rule \(index + 1)"
  }

  private static func number(_ x: Double) -> String { Text.fixed(x, decimals: 4) }

  /// Where the dish would be without the rule, in words.
  private static func without(_ place: Int?) -> String {
    place.map { "at \($0) without it" } ?? "off the deck without it"
  }

  /// A rule that acted on a dish now at `place` (nil: off the deck), in words.
  package func text(_ reason: TraceReason, at place: Int?) -> String {
    let without = DeckExplainText.without(reason.without)
    switch reason.rule {
    case .pinned:
      return "pinned first (deck 'pinned'); \(without)"
    case .restaurant(let a):
      let rule = ruleLabel(a.rule)
      switch a.effect {
      case .boosted(let from, let to):
        return "boosted by \(rule) from \(Self.number(from)) to \(Self.number(to)); \(without)"
      case .buried(let from, let to):
        return "buried by \(rule) from \(Self.number(from)) to \(Self.number(to)); \(without)"
      case .pinned(let at):
        return "pinned at \(at) by \(rule); \(without)"
      case .hidden:
        return "hidden by \(rule)"
      }
    case .recentlyShown(let day):
      return "shown on \(day), within reshow_days: behind the dishes not shown recently; \(without)"
    case .categoryCap(let category, let cap):
      return "category '\(category)' already has \(cap) cards (max_per_category); \(without)"
    case .spacing:
      let moved =
        place.map { p in reason.without.map { "moved from \($0) to \(p)" } ?? "taken in at \(p)" }
        ?? "left out"
      return "\(moved) so that no two neighbours share a category (avoid_adjacent_category)"
    }
  }

  /// Why a dish was held back, in words, naming the diner's field or the deck rule.
  package func text(_ held: HeldBackDish) -> String {
    switch held.reason {
    case .diet(let d): return "not '\(d)' (the diner's diets)"
    case .allergen(let a): return "contains '\(a)' (the diner's allergens)"
    case .dislikedCategory(let c): return "category '\(c)' (the diner's disliked_categories)"
    case .recentlyPicked(let day): return "swiped right on \(day), within repeat_pick_days"
    case .cooldown(let day): return "swiped left on \(day), within cooldown_days"
    case .hidden(let r): return "hidden by \(ruleLabel(r))"
    }
  }

  /// The strategy's parts of a score in one line: "formula: name about=value, ...".
  package func partsLine(_ e: ScoreExplanation) -> String {
    if e == .scoreOnly(e.score) { return "not given (the strategy does not explain its scores)" }
    func text(_ p: ScorePart) -> String {
      let whole = p.value == p.value.rounded() && abs(p.value) < 1e15
      return p.name + (p.about.map { " \($0)" } ?? "") + " "
        + (whole ? String(Int64(p.value)) : Self.number(p.value))
    }
    let terms = e.terms.map(text)
    let inputs = e.inputs.map(text)
    var line = e.formula
    if !terms.isEmpty { line += ": " + terms.joined(separator: ", ") }
    if !inputs.isEmpty {
      line += (terms.isEmpty ? ": " : "; inputs: ") + inputs.joined(separator: ", ")
    }
    return line
  }

  /// A card's explanation as lines for people (the table format and `play`'s `?`): its scores
  /// and rank, the strategy's parts, the rules on it, the dishes it displaced.
  package func lines(_ card: CardTrace, _ score: ScoreExplanation, keyScore: Double) -> [String] {
    var out = [
      "score \(Self.number(keyScore))"
        + (keyScore != card.strategyScore ? " (strategy \(Self.number(card.strategyScore)))" : "")
        + ", rank \(card.rankBeforeRules) before the rules",
      "parts: " + partsLine(score),
    ]
    for r in card.reasons { out.append("rule: " + text(r, at: card.position)) }
    for d in card.displaced {
      let at = d.position.map { "now at \($0)" } ?? "not on the deck"
      let head = "displaced \(catalog[d.item].id) (rank \(d.rankBeforeRules), \(at)): "
      if d.reasons.isEmpty {
        out.append(head + "outranked by dishes the rules moved up")
      }
      for r in d.reasons { out.append(head + text(r, at: d.position)) }
    }
    return out
  }

  /// The members `"explanation":{...}` of a card (JSON and JSON Lines).
  package func explanationMembers(_ card: CardTrace, _ score: ScoreExplanation) -> [UInt8] {
    var w = JSONWriter()
    w.beginObject()
    w.key("explanation")
    w.beginObject()
    w.field("strategy_score", number: card.strategyScore)
    w.field("rank_before_rules", int: card.rankBeforeRules)
    w.field("formula", score.formula)
    for (key, parts) in [("terms", score.terms), ("inputs", score.inputs)] {
      w.key(key)
      w.beginArray()
      for p in parts {
        w.beginObject()
        w.field("name", p.name)
        if let about = p.about { w.field("about", about) }
        w.field("value", number: p.value)
        w.endObject()
      }
      w.endArray()
    }
    w.key("rules")
    writeRules(card.reasons, &w)
    w.key("displaced")
    w.beginArray()
    for d in card.displaced {
      w.beginObject()
      w.field("item", catalog[d.item].id)
      w.field("name", catalog[d.item].name)
      w.field("rank_before_rules", int: d.rankBeforeRules)
      w.field("strategy_score", number: d.strategyScore)
      w.field("position", int: d.position)
      w.key("rules")
      if d.reasons.isEmpty {
        // No rule of its own: the places above it went to dishes the rules moved up.
        w.beginArray()
        w.beginObject()
        w.field("rule", Self.outranked)
        w.endObject()
        w.endArray()
      } else {
        writeRules(d.reasons, &w)
      }
      w.endObject()
    }
    w.endArray()
    w.endObject()
    w.endObject()
    return Array(w.bytes.dropFirst().dropLast())
  }

  /// Rule objects: `{"rule":kind,"without":n|null,...}`.
  private func writeRules(_ reasons: [TraceReason], _ w: inout JSONWriter) {
    w.beginArray()
    for r in reasons {
      w.beginObject()
      w.field("rule", Self.kind(r.rule))
      w.field("without", int: r.without)
      switch r.rule {
      case .pinned, .spacing:
        break
      case .restaurant(let a):
        w.field("restaurant_rule", int: a.rule + 1)
        if let name = rules.restaurantRules[a.rule].name { w.field("rule_name", name) }
        switch a.effect {
        case .boosted(let from, let to), .buried(let from, let to):
          w.field("from", number: from)
          w.field("to", number: to)
        case .pinned(let at):
          w.field("at", int: at)
        case .hidden:
          break
        }
      case .recentlyShown(let day):
        w.field("last_shown", day.description)
      case .categoryCap(let category, let cap):
        w.field("category", category)
        w.field("cap", int: cap)
      }
      w.endObject()
    }
    w.endArray()
  }

  /// The members `"held_back":[...]` of a deck (JSON), or the value of a JSON Lines line's.
  package func heldBackJSON(_ held: [HeldBackDish], _ w: inout JSONWriter) {
    w.beginArray()
    for h in held {
      w.beginObject()
      w.field("item", catalog[h.item].id)
      w.field("name", catalog[h.item].name)
      w.field("reason", Self.kind(h.reason))
      switch h.reason {
      case .diet(let v): (w.field("field", "diets"), w.field("value", v))
      case .allergen(let v): (w.field("field", "allergens"), w.field("value", v))
      case .dislikedCategory(let v): (w.field("field", "disliked_categories"), w.field("value", v))
      case .recentlyPicked(let day), .cooldown(let day): w.field("swiped", day.description)
      case .hidden(let r):
        w.field("restaurant_rule", int: r + 1)
        if let name = rules.restaurantRules[r].name { w.field("rule_name", name) }
      }
      w.endObject()
    }
    w.endArray()
  }

  /// The held-back value of a CSV row: (about, value).
  package func heldBackCells(_ h: HeldBackDish) -> (about: String, value: String) {
    switch h.reason {
    case .diet(let v): return ("diets", v)
    case .allergen(let v): return ("allergens", v)
    case .dislikedCategory(let v): return ("disliked_categories", v)
    case .recentlyPicked(let day): return ("repeat_pick_days", day.description)
    case .cooldown(let day): return ("cooldown_days", day.description)
    case .hidden(let r): return ("rules", String(r + 1))
    }
  }

  /// The `about` cell of a rule's CSV row: the restaurant rule, the category, the date.
  package func about(_ reason: TraceReason) -> String {
    switch reason.rule {
    case .pinned: return "pinned"
    case .restaurant(let a): return ruleLabel(a.rule)
    case .recentlyShown(let day): return day.description
    case .categoryCap(let category, _): return category
    case .spacing: return "avoid_adjacent_category"
    }
  }
}
