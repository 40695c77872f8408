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
    springs back otherwise. h or a swipes left at once, l or d right; q or Ctrl-C quits (a \
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
    var state = PlayState(cards: cards(start.deck, start.inputs.catalog), options: options)
    var session: [SwipeEvent] = []

    let screen = try terminalCall { () throws(SystemError) in
      try Terminal.RawScreen(input: input, output: output)
    }
    defer { screen.restore() }
    let notices = Terminal.resizeNotices()
    var decoder = PlayKeyDecoder()
    var size = Terminal.size(output) ?? (80, 24)
    var done = false
    while !done {
      screen.draw(PlayScreen.frame(PlayScreen.render(state, size: size)))
      let ready = try terminalCall { () throws(SystemError) in
        try Terminal.wait(input: input, notices: notices)
      }
      switch ready {
      case .resized:
        size = Terminal.size(output) ?? size
        continue
      case .closed:
        state = state.reduce(.quit).0
        done = true
      case .input(let bytes):
        for key in decoder.keys(bytes) where !done {
          let (next, effects) = state.reduce(key)
          state = next
          for effect in effects {
            switch effect {
            case .log(let entry):
              let event = logEvent(entry, user: diner.id, settings: request.settings)
              try start.appender?.append(event)
              if let swipe = try committed(entry, rule: rule) {
                session.append(
                  SwipeEvent(
                    user: diner.id, item: entry.item, swipe: swipe, at: event.at,
                    position: entry.position, deck: request.settings.date,
                    propensity: entry.propensity, prefixPropensity: entry.prefixPropensity))
              }
            case .rebuild:
              let (inputs, again) = try PlayJob.fetchAgain(
                request, diner: diner, session: session, context.job)
              state = state.refetched(cards(again, inputs.catalog))
            case .quit:
              done = true
            }
          }
        }
      }
    }
    screen.restore()
    context.note(
      summary(state, logged: start.appender?.count ?? 0, log: request.log?.path), code: "summary")
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

  /// A terminal call's failure as an I/O error (exit 74).
  static func terminalCall<T>(_ body: () throws(SystemError) -> T) throws -> T {
    do {
      return try body()
    } catch {
      throw CommandFailure(.ioError, "the terminal: \(error.message)")
    }
  }

  /// The deck's cards as the screen shows them.
  static func cards(_ deck: Deck, _ catalog: Catalog) -> [PlayCard] {
    deck.cards.map { card in
      let item = catalog.items[Int(card.item)]
      return PlayCard(
        id: item.id, name: item.name, category: item.category, tags: item.tags,
        price: item.price, allergens: item.allergens, diets: item.diets,
        propensity: card.propensity, prefixPropensity: card.prefixPropensity)
    }
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

  /// The swipe a logged entry amounts to: its own, or its drag's under `rule`; nil for a
  /// hesitation.
  static func committed(_ entry: PlayLogEntry, rule: SwipeRule) throws -> SwipeDirection? {
    if let swipe = entry.swipe { return swipe }
    guard let dx = entry.dx else { return nil }
    return try rule.decide(dx: dx, width: entry.width).swipe
  }

  /// The line on standard error after the screen is left.
  static func summary(_ state: PlayState, logged: Int, log: String?) -> String {
    var text: String
    if state.options.carousel {
      text = "browsed \(plural(state.cards.count, "card"))"
    } else {
      let session = state.deck
      switch session.status {
      case .picked(let index):
        text =
          "picked '\(state.cards[index].name)' at \(session.swiped.count) of \(session.original.count)"
      case .finishedSwiping: text = "finished swiping \(plural(session.original.count, "card"))"
      case .noCards: text = "no cards"
      case .abandoned, .inProgress:
        text = "stopped after \(plural(session.swiped.count, "swipe")) of \(session.original.count)"
      }
    }
    if let log { text += "; \(plural(logged, "event")) appended to \(log)" }
    return text
  }
}
