import DeckCore
import DeckEvaluation
import DeckIO

/// `compare --trec DIR`: the judgements, the decks and the training swipes as TREC files.
extension CompareLogs {
  /// `DIR/qrels.txt` (the right swipes of the evaluation period) and `DIR/NAME.run` per strategy,
  /// so that `trec_eval -c -m P.10 ... DIR/qrels.txt DIR/NAME.run` recomputes the ranking
  /// metrics, and `DIR/train.csv`, the training events as a swipe log (`TrainingLog`), so that
  /// reference implementations learn from the same swipes. The files are outputs of the run
  /// (see `trecFiles`), replaced with its others.
  static func writeTrec(
    dir: String, users: [String], relevant: [[Int32]], nonRelevant: [[Int32]], names: [String],
    rankings: [[[Int32]]], catalog: Catalog, training: TrainingLog?, outputs: RunOutputs,
    key: OutputKey
  ) throws {
    let ids = catalog.items.map(\.id)
    let files = trecFiles(dir: dir, names: names)
    do {
      let qrels = try TrecFiles.qrels(
        users: users, relevant: relevant, nonRelevant: nonRelevant, itemIDs: ids)
      try outputs.write(Array(qrels.utf8), to: key, path: files[0])
      try outputs.write(
        training?.bytes() ?? Array(EventWriter.csvHeader(drags: false).utf8 + [0x0A]),
        to: key, path: files[1])
      for (index, (name, lists)) in zip(names, rankings).enumerated() {
        let run = try TrecFiles.run(users: users, rankings: lists, itemIDs: ids, tag: name)
        try outputs.write(Array(run.utf8), to: key, path: files[index + 2])
      }
    } catch let error as TrecIDError {
      throw JobError(.dataError, "--trec: \(error)")
    }
  }

  /// The files `--trec DIR` writes: `DIR/qrels.txt`, `DIR/train.csv`, then `DIR/NAME.run` for
  /// each strategy (a named configuration may hold characters a file name should not: they
  /// become `_`; no name ends in `.csv`, so none is the training log).
  package static func trecFiles(dir: String, names: [String]) -> [String] {
    let base = dir.hasSuffix("/") ? dir : dir + "/"
    return [base + "qrels.txt", base + "train.csv"]
      + names.map { name in
        base
          + String(
            name.unicodeScalars.map { c in
              c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-" || c == "."
                ? Character(c) : "_"
            }) + ".run"
      }
  }
}
