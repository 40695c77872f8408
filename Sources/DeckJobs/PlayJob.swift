import DeckBase
import DeckCore
import DeckIO

/// `menudeck play`: one diner's deck, built exactly as `deck` builds it, to swipe in the
/// terminal (the screen and its loop are the command line's, on DeckPlay's pure state).
package struct PlayRequest: Sendable {
  /// The config with the command line's paths, strategy, date and rules over it.
  package var settings: RunSettings
  /// `--user`; nil: the users file's only diner.
  package var user: String?
  /// The strategy that takes over when the plugin fails (`--fallback`'s name).
  package var fallback: String?
  /// The swipe log every swipe and hesitation is appended to (`--log`), in its name's format.
  package var log: (path: String, format: EventFormat)?
  /// The files the run reads, which the log must not be.
  package var inputFiles: [RunOutputs.File] = []
  /// menudeck's version (`DeckInputs` makes the run header `deck` writes).
  package var version: String

  package init(settings: RunSettings, version: String) {
    self.settings = settings
    self.version = version
  }
}

/// The work of a `PlayRequest` around the screen: the diner's deck before the session, the
/// log it appends to, and the deck fetched again with the session's swipes.
package enum PlayJob {
  package struct Session {
    package var inputs: DeckInputs
    package var diner: UserProfile
    package var deck: Deck
    /// Where the session's swipes are appended; nil without `--log`.
    package var appender: EventAppender?
    /// Per card of `deck`, why it is where it is (`play`'s `?` key; `deck --explain`'s lines).
    package var reasons: [[String]] = []
  }

  /// Checks that the log is no input, loads the inputs as `deck` does (on one thread), tells
  /// an empty or stale history, chooses the diner and builds the deck, then opens the log.
  package static func start(_ request: PlayRequest, _ io: JobIO) throws -> Session {
    if let log = request.log {
      try RunOutputs.refuseInput(.init("--log", log.path), inputs: request.inputFiles, io: io)
    }
    let inputs = try load(request, io)
    HistoryFreshness.tell(inputs.freshness, io)
    let diner = try self.diner(request.user, inputs, io)
    let explained = try inputs.explainedDeck(for: diner)
    try inputs.strategy.finish()
    var appender: EventAppender?
    if let log = request.log {
      appender = try EventAppender(
        path: Paths.open(log.path, io), name: log.path, format: log.format)
    }
    return Session(
      inputs: inputs, diner: diner, deck: explained.trace.deck, appender: appender,
      reasons: reasons(explained, inputs))
  }

  /// The inputs of `deck` for one diner, with `extra` swipes (the session's) in the history.
  package static func load(_ request: PlayRequest, _ io: JobIO, extra: [SwipeEvent] = [])
    throws -> DeckInputs
  {
    try DeckInputs.load(
      request.settings, fallback: request.fallback, jobs: 1, version: request.version, io,
      extra: extra)
  }

  /// The deck fetched again: built through the pipeline with the session's swipes added to
  /// the history. A deck never sees its own day: swipes on the deck date change nothing.
  package static func fetchAgain(
    _ request: PlayRequest, diner: UserProfile, session: [SwipeEvent], _ io: JobIO
  ) throws -> (DeckInputs, Deck) {
    let inputs = try load(request, io, extra: session)
    let deck = try inputs.deck(for: diner)
    try inputs.strategy.finish()
    return (inputs, deck)
  }

  /// The one diner: `user`, else the users file's only diner.
  package static func diner(_ user: String?, _ inputs: DeckInputs, _ io: JobIO) throws
    -> UserProfile
  {
    if let id = user {
      guard !id.isEmpty else {
        throw JobError.usage("'--user' needs a diner id, got an empty string")
      }
      if let profile = inputs.users.first(where: { IDKey.same($0.id, id) }) { return profile }
      if inputs.history.users[id] == nil { DeckJob.warnUnknown(id, io) }
      return UserProfile(id: id)
    }
    guard inputs.users.count == 1 else {
      let found =
        inputs.settings.usersPath == nil
        ? "there is no users file"
        : "the users file has \(TextLayout.plural(inputs.users.count, "diner"))"
      throw JobError.usage("play swipes one diner's deck: give --user ID (\(found))")
    }
    return inputs.users[0]
  }
}
