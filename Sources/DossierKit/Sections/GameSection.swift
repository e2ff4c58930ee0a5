import Foundation
import GameAnalytics

/// The `game` section: glue between the GameAnalytics core and the renderer.
///
/// Placeholder until the GameAnalytics issue lands: it accepts no configuration yet.
public struct GameSection: Section {
    public static let key = "game"
    public static let title = "Game analytics"

    public init(config: SectionConfig, project: Project) throws {
        throw config.error(nil, "the game section is not implemented yet")
    }

    public func units() throws -> [SectionUnit] { [] }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult { UnitResult() }

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult { UnitResult() }
}
