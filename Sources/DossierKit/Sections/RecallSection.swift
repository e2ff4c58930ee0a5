import Foundation
import RecallStudy

/// The `recall` section: glue between the RecallStudy core and the renderer.
///
/// Placeholder until the RecallStudy issue lands: it accepts no configuration yet.
public struct RecallSection: Section {
    public static let key = "recall"
    public static let title = "Memorization study"

    public init(config: SectionConfig, project: Project) throws {
        throw config.error(nil, "the recall section is not implemented yet")
    }

    public func units() throws -> [SectionUnit] { [] }

    public func build(unit: SectionUnit, context: SectionContext) async throws -> UnitResult { UnitResult() }

    public func summarize(records: [UnitRecord], context: SectionContext) async throws -> UnitResult { UnitResult() }
}
