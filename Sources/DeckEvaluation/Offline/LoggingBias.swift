import DeckBase

/// The bias of the ranking metrics on logs evaluated without `--ope`, and what the log holds to
/// correct it.
///
/// A diner's relevant dishes are the ones they swiped right in the evaluation period, and a
/// diner could swipe only the dishes the logged decks showed: the logging strategy and its deck
/// rules decided which dishes could become relevant. A strategy that ranks as the logging
/// strategy did is favoured; a dish it seldom showed counts as a miss however much the diner
/// would have liked it. Only a logging policy that gave every dish the same chance of being
/// shown (deck rules included) judges every strategy alike. The off-policy estimates (`--ope`)
/// reweight each logged card by the logging strategy's probability of showing it there (its
/// propensity) and so correct for what was shown.
package struct LoggingBias: Sendable, Equatable {
  /// How many of the evaluated events carry a propensity.
  package enum Propensities: String, Sendable {
    case none, some, all
  }

  /// Events of the evaluation period.
  package var evaluationEvents: Int
  /// Those of them that carry a `propensity`.
  package var withPropensity: Int
  /// Whether the logs were split by date (`--split`): `--ope` needs it.
  package var byDate: Bool

  package var propensities: Propensities {
    if withPropensity == 0 { return .none }
    return withPropensity >= evaluationEvents ? .all : .some
  }

  /// The note on standard error and in the report.
  package var note: String {
    var s =
      "the ranking metrics favour the logging strategy: a diner could swipe right only on the"
      + " dishes the logged decks showed, so strategies that rank like the logging strategy"
      + " (and its deck rules) are favoured and dishes it seldom showed count as misses (only a"
      + " logging policy that gave every dish the same chance judges all strategies alike); "
    switch (byDate, propensities) {
    case (true, .all):
      s += "the log carries propensities: add --ope for off-policy estimates that correct for"
      s += " what was shown"
    case (true, .some):
      s += "only \(withPropensity) of the \(evaluationEvents) evaluated events carry a"
      s += " propensity, and --ope needs one on every event: log each card's position and"
      s += " propensity (the logging strategy's probability of showing that dish there)"
    case (true, .none):
      s += "the log has no propensities to correct it: log each card's position and propensity"
      s += " (the logging strategy's probability of showing that dish there), then compare with"
      s += " --ope"
    case (false, _):
      s += "off-policy estimates (--ope) correct for it, but need logs with times (--split DATE)"
      s += " whose cards carry their position and propensity (the logging strategy's probability"
      s += " of showing that dish there)"
    }
    return s
  }

  /// The JSON object of the report's `logging_bias`.
  package var json: String { JSONWriter.text { write(to: &$0) } }

  /// Writes `json` as the next value of `w`.
  package func write(to w: inout JSONWriter) {
    w.beginObject()
    w.field("propensities", propensities.rawValue)
    w.field("evaluation_events", int: evaluationEvents)
    w.field("with_propensity", int: withPropensity)
    w.field("note", note)
    w.endObject()
  }
}
