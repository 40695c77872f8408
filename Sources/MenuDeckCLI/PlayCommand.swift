import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import DeckPlay
import DeckStrategies
import Foundation

let playCommand = CommandSpec(
  name: "play",
  abstract: "Swipe one diner's deck in the terminal, as the apps do.",
  discussion: """
    Builds the diner's deck for the date exactly as 'menudeck deck' does (same config, rules \
    and strategy) and shows it full screen: the top card with the next two stacked behind it, \
    and a counter. Left and right arrows drag the card a step (under the relative drag rule 5% \
    of the card width, the config's simulation.card_width, \(Int(PlayOptions.defaultCardWidth)) pt by default; \
    20 pt under the absolute rule); the hint label shows at \
    |dx|/width >= 0.12 (relative rule). Enter or space releases: the card is swiped when the \
    config's drag rule commits (relative: |dx|/width > 0.45; absolute: |dx| > 100 pt) and \
    springs back otherwise. h or a swipes left at once, l or d right; ? shows why the top card \
    is where it is (deck --explain's reasons) until the next key; q or Ctrl-C quits (a \
    session in progress ends abandoned).

    --mode pick (the food-menu app): the first right swipe is today's pick and ends the \
    session. --mode all (swipeable cards): swipe to "Finished Swiping", then r resets the deck. \
    "No Cards" (and a pick-mode deck swiped to its end) offers f: fetch the cards again, built \
    through the pipeline with this session's swipes added to the history. A deck never sees \
    its own day, so swipes made on the deck date do not change that date's deck: the fetched \
    deck may still be empty.

    --carousel browses the deck with the carousel app's rule: drag right (right arrow) shows \
    the previous card, drag left (left arrow) or a tap (enter, space) the next one; nothing is \
    logged.

    --log FILE appends every swipe and every drag that sprang back (a hesitation) to FILE, one \
    line each as it happens, in the swipe-log schema that ingest, stats and deck --history \
    read (.jsonl or .ndjson, or .csv with the dx and width columns). Standard input and output \
    must be a terminal; NO_COLOR turns colours off.

    Examples:
      menudeck play --user u01 --date 2026-11-30
      menudeck play --user u01 --mode all --log today.jsonl --labels ja
      menudeck play --user u01 --carousel
    """,
  options: InputOptions.all.filter { $0 != InputOptions.rejects.spec } + [
    InputOptions.date.spec,
    PlayRun.user.spec,
    InputOptions.strategy.spec,
    InputOptions.option.spec,
    InputOptions.size.spec,
    InputOptions.seed.spec,
    InputOptions.fallback.spec,
    PlayRun.mode.spec,
    PlayRun.carousel.spec,
    PlayRun.labels.spec,
    PlayRun.log.spec,
  ],
  run: { args, context in try PlayRun.run(args, context) })

enum PlayRun {
  static let user = Option<String>(
    "user", short: "u", valueName: "id",
    help: "The diner (required unless the users file has exactly one).")
  static let mode = Option<String>(
    "mode", short: "m", valueName: "mode", default: "pick", choices: ["pick", "all"],
    help: "pick: the first right swipe is the pick (food-menu app); all: swipe every card.")
  static let carousel = Flag(
    "carousel", help: "Browse the cards with the carousel's rule instead of swiping.")
  static let labels = Option<String>(
    "labels", valueName: "language", default: "en", choices: PlayLabels.allCases.map(\.rawValue),
    help: "The hint labels' language: en, or ja (the app's own).")
  static let log = Option<String>(
    "log", valueName: "file",
    help:
      "Append every swipe and hesitation to this swipe log (.jsonl, .ndjson or .csv) as it "
      + "happens.")

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let request = try PlayRequest(args, context)
    let (input, output) = try terminal(context.io)
    let start = try PlayJob.start(request, context.job)
    let (diner, rule) = (start.diner, request.settings.config.dragRule)
    let options = PlayOptions(args, request, diner: diner.id, context.io)
    var session: [SwipeEvent] = []
    let state = try PlayTerminal.play(
      PlayState(
        cards: PlayCard.cards(start.deck, start.inputs.catalog, reasons: start.reasons),
        options: options),
      input: input, output: output,
      log: { entry in
        let event = logEvent(entry, user: diner.id, settings: request.settings)
        try start.appender?.append(event)
        if let swipe = try entry.committed(rule: rule) {
          session.append(
            SwipeEvent(
              user: diner.id, item: entry.item, swipe: swipe, at: event.at,
              position: entry.position, deck: request.settings.date,
              propensity: entry.propensity, prefixPropensity: entry.prefixPropensity))
        }
      },
      refetch: {
        let (inputs, again, reasons) = try PlayJob.fetchAgainExplained(
          request, diner: diner, session: session, context.job)
        return PlayCard.cards(again, inputs.catalog, reasons: reasons)
      })
    context.note(
      state.summary(logged: start.appender?.count ?? 0, log: request.log?.path), code: "summary")
    return .success
  }

  /// The descriptors of the terminal, or the usage error (exit 64) that says which stream is not
  /// one.
  static func terminal(_ io: CLIStreams) throws -> (input: Int32, output: Int32) {
    let input = (io.stdin as? FileDescriptorSource)?.fileDescriptor
    let output = (io.stdout as? FileDescriptorSink)?.fileDescriptor
    for (name, fd) in [("input", input), ("output", output)] {
      guard let fd, Terminal.isTerminal(fd) else {
        throw CommandFailure(
          .usage,
          "play needs a terminal: standard \(name) is not a terminal; run it in a terminal, or "
            + "use `menudeck deck` for batch output")
      }
    }
    return (input!, output!)
  }

  /// A log line for `entry`, stamped with the wall clock in the config's time zone and the
  /// offset from UTC it has at that instant (daylight saving time included).
  static func logEvent(
    _ entry: PlayLogEntry, user: String, settings: RunSettings, now: Date = Date()
  ) -> LogEvent {
    let offset = settings.zone.secondsFromGMT(for: now)
    let at = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(offset)
    let propensity = entry.propensity.flatMap { $0 > 0 && $0 <= 1 ? $0 : nil }
    let prefixPropensity = entry.prefixPropensity.flatMap { $0 > 0 && $0 <= 1 ? $0 : nil }
    return LogEvent(
      user: user, item: entry.item, swipe: entry.swipe,
      drag: entry.dx.map { LoggedDrag(dx: $0, width: entry.width) }, at: at, utcOffset: offset,
      position: entry.position, deck: settings.date, propensity: propensity,
      prefixPropensity: prefixPropensity)
  }
}
