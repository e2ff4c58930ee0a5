#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// Every section Dossier knows, in the order they appear on the home page.
///
/// A domain compiled out with `DOSSIER_ONLY` (see Package.swift) is absent here.
public enum SectionRegistry {
    public static var all: [any Section.Type] {
        var list: [any Section.Type] = []
        #if DOMAIN_RECALL
        list.append(RecallSection.self)
        #endif
        #if DOMAIN_EXPERIENCES
        list.append(ExperiencesSection.self)
        #endif
        #if DOMAIN_VAULT
        list.append(VaultSection.self)
        #endif
        #if DOMAIN_SMS
        list.append(SMSSection.self)
        #endif
        #if DOMAIN_GAME
        list.append(GameSection.self)
        #endif
        return list
    }

    public static var keys: Set<String> { Set(all.map { $0.key }) }

    public static func type(for key: String) -> (any Section.Type)? { all.first { $0.key == key } }
}
