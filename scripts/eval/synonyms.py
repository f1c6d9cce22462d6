"""What scripts/eval/long and scripts/eval/search share: both refuse to measure
without the thesaurus, which ib-search silently does without (figures measured
without it are another system's, under the same name)."""
import os
import sys


def require_thesaurus():
    """Exits with a line naming the file when the thesaurus is missing, unless
    IB_SEARCH_SYNONYMS=0 asks for a measure without synonyms."""
    if os.environ.get("IB_SEARCH_SYNONYMS") == "0":
        return
    path = os.environ.get("IB_THESAURUS") or os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "ib", "thesaurus.tsv")
    if not os.path.isfile(path):
        sys.exit(f"eval: no thesaurus at {path}: run scripts/build-thesaurus first "
                 "(or IB_SEARCH_SYNONYMS=0 to measure without synonyms)")
