"""Files of the wire models: decoding by Go's rules, writing as Go writes, loading and saving.

One concept per module, listed bottom up (a module imports only modules listed before it):

* :mod:`~agenteval_nb.io.entry_rules`: the rules every eval set and metrics list meets before
  any case runs, in any form (depth, number range, ``evalId``), and their messages;
* :mod:`~agenteval_nb.io.escaping`: Go's HTML escaping, lone surrogates, UTF-8 only;
* :mod:`~agenteval_nb.io.jsonscan`: vectorised scans that say when the fast decoders may not be
  trusted;
* :mod:`~agenteval_nb.io.decoding`: JSON text decoded strictly, errors with path and line;
* :mod:`~agenteval_nb.io.documents`: decoded data made a model, or an error naming what was
  expected; a document of another kind named;
* :mod:`~agenteval_nb.io.gowriter`: models written as the Go framework writes its files, whole
  or in pieces;
* :mod:`~agenteval_nb.io.atomic`: files replaced atomically;
* :mod:`~agenteval_nb.io.reviews`: review files, a reviewer's marks beside a result file, merged
  per mark under a lock; a newer version's file never rewritten, unknown fields kept;
* :mod:`~agenteval_nb.io.table_rows`: eval sets from rows, each cell read by its role, every
  bad cell listed with its row and column;
* :mod:`~agenteval_nb.io.table_readers`: CSV / JSONL / Parquet files, frames and ``datasets``
  splits read as rows, and made eval sets;
* :mod:`~agenteval_nb.io.table_export`: an eval set back as a frame, one row per turn;
* :mod:`~agenteval_nb.io.loaders`: ``load_*`` and ``save_*`` of eval sets, metrics, cases,
  results;
* :mod:`~agenteval_nb.io.sources`: eval sets and result files split into raw case texts,
  validated a case at a time;
* :mod:`~agenteval_nb.io.case_texts`: a run's case results kept as compact file text.

The names below are what other rooms and users import; the rest stays in its module.
"""

from __future__ import annotations

from .atomic import write_text_atomic
from .case_texts import CaseDetails, save_details
from .documents import preview
from .entry_rules import MAX_DEPTH, OBJECT_SOURCE, RESULT_EXTRA_DEPTH, json_path
from .escaping import go_escape, utf8_safe
from .gowriter import case_result_texts, decoded_text, dumps
from .loaders import (
    Source,
    is_json_text,
    load_case,
    load_evalset,
    load_metrics,
    load_metrics_config,
    load_result,
    save_evalset,
    save_metrics,
    save_result,
)
from .sources import (
    CaseSource,
    ModelCases,
    StreamedCases,
    StreamedResult,
    as_source,
    open_evalset,
    open_result,
)
from .table_export import evalset_to_df
from .table_readers import evalset_from_dataset, evalset_from_df

__all__ = [
    "MAX_DEPTH",
    "OBJECT_SOURCE",
    "RESULT_EXTRA_DEPTH",
    "CaseDetails",
    "CaseSource",
    "ModelCases",
    "Source",
    "StreamedCases",
    "StreamedResult",
    "as_source",
    "case_result_texts",
    "decoded_text",
    "dumps",
    "evalset_from_dataset",
    "evalset_from_df",
    "evalset_to_df",
    "go_escape",
    "is_json_text",
    "json_path",
    "load_case",
    "load_evalset",
    "load_metrics",
    "load_metrics_config",
    "load_result",
    "open_evalset",
    "open_result",
    "preview",
    "save_details",
    "save_evalset",
    "save_metrics",
    "save_result",
    "utf8_safe",
    "write_text_atomic",
]
