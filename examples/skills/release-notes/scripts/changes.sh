#!/bin/sh
# The commits since the last tag (or all of them when there is none).
last=$(git describe --tags --abbrev=0 2>/dev/null)
if [ -n "$last" ]; then git log --oneline "$last"..HEAD; else git log --oneline; fi
