// The system libyaml (Debian's libyaml-dev): the YAML event parser under dossier.yml and
// front matter (Sources/DossierKit/Project/YAMLComposer.swift composes its events).
#include <yaml.h>
