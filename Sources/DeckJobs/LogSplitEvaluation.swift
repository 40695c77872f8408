import DeckCore
import DeckEvaluation
import DeckIO

// What the evaluations of a log split (`compare` on logs, `tune` and `compare --tune`) load and
// check alike.

extension Inputs {
  /// The catalog of `catalogPath` and the profiles of the users file `usersPath`, if any (by
  /// the bytes of their ids), with the run header's inputs: the config's, the catalog, the
  /// users file.
  static func catalogAndProfiles(
    _ config: MenuDeckConfig, catalogPath: String, usersPath: String?,
    _ delimiters: CSVDelimiters, _ io: JobIO
  ) throws -> (catalog: Catalog, profiles: [IDKey: UserProfile], inputs: [RunInput]) {
    let (catalog, catalogHash) = try loadCatalog(catalogPath, io, delimiter: delimiters.catalog)
    var inputs = RunInputs.config(config)
    inputs.append(RunInput(role: "catalog", path: catalogPath, sha256: catalogHash))
    var profiles: [IDKey: UserProfile] = [:]
    if let path = usersPath {
      let (users, usersHash) = try loadUsers(path, io, delimiter: delimiters.users)
      inputs.append(RunInput(role: "users", path: path, sha256: usersHash))
      for u in users { profiles[IDKey(u.id)] = u }
    }
    return (catalog, profiles, inputs)
  }
}

extension LogSplitSink {
  /// The diners with a right swipe in the held-out part, with their right-swiped dishes; a data
  /// error when there is none: "no diner swiped right in the `period`: nothing to `purpose`;
  /// `advice`", after `prefix` (the option that asked, as "--tune: ").
  func judgedDiners(
    in period: String, nothingTo purpose: String, prefix: String = "", advice: () -> String
  ) throws -> [(user: String, relevant: [Int32])] {
    let judged = heldOut.judged
    guard judged.isEmpty else { return judged }
    throw JobError(
      .dataError,
      prefix + "no diner swiped right in the \(period): nothing to \(purpose); \(advice())")
  }
}

extension TuningValidation {
  /// The validation of a tuning (`tune`, `compare --tune`) from `sink`, the validation split of
  /// the training side (`validationText`, as `Tuning.describe` words `cut`): its training
  /// history, its judged diners with their profiles (a data error when none swiped right), and
  /// a warning when no training event comes before it. Messages start with `prefix`.
  init(
    _ sink: LogSplitSink, cut: ValidationCut, validationText: String, prefix: String = "",
    catalog: Catalog, profiles: [IDKey: UserProfile],
    builder: @autoclosure () throws -> DeckBuilder,
    cutoffs: [Int], runSeed: UInt64, jobs: Int, _ io: JobIO
  ) throws {
    let history = try sink.training.build()
    let judged = try sink.judgedDiners(
      in: "validation (\(validationText))", nothingTo: "tune on", prefix: prefix
    ) {
      switch cut {
      case .days: "give more --validation-days, or a later --split"
      case .fraction: "give a larger --validation-fraction"
      }
    }
    if sink.trainingEvents == 0 {
      io.diagnostics.warning(
        prefix + "no training event before the validation (\(validationText)): every setting"
          + " learned nothing; give fewer --validation-days",
        code: "no_training_events", location: nil)
    }
    self.init(
      catalog: catalog,
      diners: judged.map { profiles[IDKey($0.user)] ?? UserProfile(id: $0.user) },
      relevant: judged.map(\.relevant), history: history, builder: try builder(),
      cutoffs: cutoffs, seed: LogEvaluation.targetSeed(runSeed: runSeed), date: sink.deckDate,
      jobs: jobs)
  }
}
