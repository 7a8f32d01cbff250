"""The classroom wing: fixtures, the partition harness, and the tools the
lessons and exercises use. The parser modules never import from here."""
