import DeckCore

/// Why a strategy gave a candidate its score, in the strategy's own terms (`deck --explain`):
/// the score and the parts it came from.
///
/// Two kinds of part: `terms`, whose values add up to the score (to rounding: a property test
/// holds every strategy whose score is a sum to 1e-9), and `inputs`, the named quantities the
/// score is a formula of (counts, a prior, a rate) with the formula in `formula`. A strategy
/// gives either or both: popularity's score is a formula of its inputs (likes, showings, the
/// prior), EASE's a sum of terms (one per liked dish), a linear bandit's both (a term per
/// feature and the exploration bonus, with the width as an input).
package struct ScoreExplanation: Sendable, Equatable {
  /// The candidate's score, as `score` gave it.
  package var score: Double
  /// Parts whose values sum to `score` (empty when the score is not a sum).
  package var terms: [ScorePart]
  /// Named quantities the score is computed from by `formula`.
  package var inputs: [ScorePart]
  /// How the score follows from the parts, in the notation of docs/strategies.md
  /// (e.g. "(likes + a) / (shown + a + b)"); "sum of terms" when `terms` add up to it.
  package var formula: String

  package init(
    score: Double, terms: [ScorePart] = [], inputs: [ScorePart] = [], formula: String
  ) {
    self.score = score
    self.terms = terms
    self.inputs = inputs
    self.formula = formula
  }

  /// The formula of an explanation whose terms sum to the score.
  package static let sumOfTerms = "sum of terms"

  /// An explanation that says only the score (a strategy that does not explain itself).
  package static func scoreOnly(_ score: Double) -> ScoreExplanation {
    ScoreExplanation(score: score, inputs: [ScorePart("score", score)], formula: "score")
  }
}

/// One named part of a score: a term of the sum or an input of the formula. `name` is a fixed
/// word of the strategy's vocabulary (documented with the strategy: "prior_a", "likes",
/// "neighbour", "feature", "exploration", ...), `about` what it refers to when there are several
/// of that name (a dish id, a feature name, a component strategy), `value` its number.
package struct ScorePart: Sendable, Equatable {
  package var name: String
  package var about: String?
  package var value: Double

  package init(_ name: String, _ value: Double, about: String? = nil) {
    self.name = name
    self.about = about
    self.value = value
  }
}

/// A strategy that can say why each candidate got its score. `explain` is called after `learn`,
/// with the same context `score` had (the same random stream state, so a stochastic strategy
/// explains the very draw it scored), for the candidates at `positions` (indices into
/// `context.candidates`); it returns one explanation per position, whose `score` equals the
/// score `score(&context)` gives that candidate.
package protocol ExplainingStrategy: BuiltinStrategy {
  func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation]
}

extension ScoreExplanation {
  /// The value of the input `name` (the one about `about`, when given), nil when there is none.
  package func input(_ name: String, about: String? = nil) -> Double? {
    inputs.first { $0.name == name && (about == nil || $0.about == about) }?.value
  }

  /// The value of the term `name` (the one about `about`, when given), nil when there is none.
  package func term(_ name: String, about: String? = nil) -> Double? {
    terms.first { $0.name == name && (about == nil || $0.about == about) }?.value
  }

  /// The terms added up in their order (the score, to rounding, when the formula is
  /// `sumOfTerms`).
  package var termSum: Double { terms.reduce(0) { $0 + $1.value } }
}
