import Foundation
import Experiences

/// The `experiences` section: glue between the Experiences core and the renderer.
///
/// Placeholder until the Experiences issue lands: it accepts no configuration yet.
public struct ExperiencesSection: Section {
    public static let key = "experiences"
    public static let title = "Experiences"

    public init(config: SectionConfig, project: Project) throws {
        throw config.error(nil, "the experiences section is not implemented yet")
    }

    public func units() throws -> [SectionUnit] { [] }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult { UnitResult() }

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult { UnitResult() }
}
