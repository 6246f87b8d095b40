"""The OpenAI files and batches endpoints of the loopback server (JUDGES.md §9).

Plug it in with ``FakeOpenAIServer(handler, batches=FakeBatches(...))``; each batch line is
answered by the server's own chat answer (script, handler or echo), so a batch run and a
synchronous run against one server get the same answers.

Rules:

* ``POST /v1/files`` (multipart, parsed with the ``email`` package), ``GET
  /v1/files/{id}/content``, ``POST /v1/batches``, ``GET /v1/batches`` (newest first, one page),
  ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``;
* a batch's status advances one step per retrieve: ``validating → in_progress → finalizing →
  completed``; the lines are answered when it completes (or expires);
* validation at the first retrieve: an unreadable line, a duplicate ``custom_id``, a ``url``
  other than the batch endpoint, mixed models, more than ``max_lines`` lines or ``max_bytes``
  bytes ⇒ status ``failed`` with ``errors.data[{code, line, message, param}]`` (1-based lines);
* faults: ``shuffle`` the output lines; ``line_fault(batch_no, line_no, line)`` → ``"drop"``
  (no result line), an HTTP status (a line in the error file with that ``status_code`` and an
  error body, ``error`` null) or None; ``batch_fault(batch_no)`` → ``"expire"`` (after
  ``in_progress`` the batch expires: the first half of its lines answered, the rest in the error
  file as ``batch_expired``), ``"stall"`` (stays ``in_progress``), ``"fail"`` (validation fails)
  or None; ``retrieve_errors`` next retrieves answer HTTP 500; ``enabled=False`` answers 404 on
  every route (as does a server without ``batches``);
* counters: ``uploads``, ``creates``, ``retrieves``, ``cancels``, ``lines_answered``.
"""

from __future__ import annotations

import email.parser
import email.policy
import itertools
import json
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .fake_server import FakeResponse, error_body

LineAnswer = Callable[[dict[str, Any]], FakeResponse]
"""How the server answers one request body (status and body)."""

STEPS = ("validating", "in_progress", "finalizing", "completed")
ENDPOINT = "/v1/chat/completions"
_EXPIRED = {
    "code": "batch_expired",
    "message": "This request could not be executed before the completion window expired.",
}


@dataclass
class _Batch:
    number: int
    data: dict[str, Any]
    lines: list[bytes]
    step: int = 0
    cancelling: bool = False


@dataclass
class FakeBatches:
    """The batch endpoints' state and fault knobs (module rules)."""

    shuffle: bool = False
    line_fault: Callable[[int, int, dict[str, Any]], str | int | None] | None = None
    batch_fault: Callable[[int], str | None] | None = None
    retrieve_errors: int = 0
    enabled: bool = True
    max_lines: int = 50_000
    max_bytes: int = 200 * 1024 * 1024
    seed: int = 0
    uploads: int = 0
    creates: int = 0
    retrieves: int = 0
    cancels: int = 0
    lines_answered: int = 0
    answer: LineAnswer | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, _Batch] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Any = field(default_factory=itertools.count)

    # routing -------------------------------------------------------------------------------

    def handle(
        self, method: str, path: str, headers: Mapping[str, str], raw: bytes
    ) -> FakeResponse | None:
        """The answer of a files / batches route, or None when ``path`` is not one."""
        parts = [p for p in path.split("/") if p]
        if parts[:1] == ["v1"]:
            parts = parts[1:]
        if not parts or parts[0] not in ("files", "batches"):
            return None
        if not self.enabled:
            return FakeResponse(404, error_body(f"no route {method} {path}", type_="not_found"))
        with self._lock:
            return self._route(method, parts, headers, raw)

    def _route(
        self, method: str, parts: list[str], headers: Mapping[str, str], raw: bytes
    ) -> FakeResponse:
        kind, rest = parts[0], parts[1:]
        if kind == "files" and method == "POST" and not rest:
            return self._upload(headers, raw)
        if kind == "files" and method == "GET" and len(rest) == 2 and rest[1] == "content":
            data = self.files.get(rest[0])
            if data is None:
                return FakeResponse(404, error_body(f"no file {rest[0]}"))
            return FakeResponse(200, data, content_type="application/octet-stream")
        if kind == "batches" and method == "POST" and not rest:
            return self._create(raw)
        if kind == "batches" and method == "GET" and not rest:
            listed = [b.data for b in reversed(self.batches.values())]
            return FakeResponse(200, {"object": "list", "data": listed, "has_more": False})
        if kind == "batches" and rest and rest[0] in self.batches:
            batch = self.batches[rest[0]]
            if method == "GET" and len(rest) == 1:
                return self._retrieve(batch)
            if method == "POST" and rest[1:] == ["cancel"]:
                self.cancels += 1
                if batch.data["status"] not in ("completed", "failed", "expired", "cancelled"):
                    batch.cancelling = True
                    batch.data["status"] = "cancelling"
                return FakeResponse(200, batch.data)
        return FakeResponse(404, error_body(f"no route {method} /{'/'.join(parts)}"))

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids)}"

    # files ---------------------------------------------------------------------------------

    def _upload(self, headers: Mapping[str, str], raw: bytes) -> FakeResponse:
        head = f"Content-Type: {headers.get('content-type', '')}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
        fields: dict[str, bytes] = {}
        name = "upload.jsonl"
        for part in message.iter_parts():
            field_name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            if isinstance(field_name, str) and isinstance(payload, bytes):
                fields[field_name] = payload
                if field_name == "file":
                    name = str(part.get_filename() or name)
        if "file" not in fields or fields.get("purpose") != b"batch":
            return FakeResponse(400, error_body("expected multipart file and purpose=batch"))
        file_id = self._new_id("file")
        self.files[file_id] = fields["file"]
        self.uploads += 1
        return FakeResponse(
            200,
            {
                "id": file_id,
                "object": "file",
                "bytes": len(fields["file"]),
                "created_at": int(time.time()),
                "filename": name,
                "purpose": "batch",
                "status": "processed",
            },
        )

    # batches -------------------------------------------------------------------------------

    def _create(self, raw: bytes) -> FakeResponse:
        try:
            request = json.loads(raw)
        except ValueError:
            return FakeResponse(400, error_body("body is not JSON"))
        file_id = request.get("input_file_id")
        if file_id not in self.files:
            return FakeResponse(400, error_body(f"no file {file_id}"))
        batch_id = self._new_id("batch")
        number = self.creates
        self.creates += 1
        data = {
            "id": batch_id,
            "object": "batch",
            "endpoint": request.get("endpoint"),
            "input_file_id": file_id,
            "completion_window": request.get("completion_window"),
            "status": STEPS[0],
            "output_file_id": None,
            "error_file_id": None,
            "errors": None,
            "created_at": int(time.time()),
            "metadata": request.get("metadata"),
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
        }
        lines = [line for line in self.files[file_id].splitlines() if line.strip()]
        self.batches[batch_id] = _Batch(number, data, lines)
        return FakeResponse(200, data)

    def _retrieve(self, batch: _Batch) -> FakeResponse:
        self.retrieves += 1
        if self.retrieve_errors > 0:
            self.retrieve_errors -= 1
            return FakeResponse(500, error_body("retrieve failed (injected)"))
        data = batch.data
        if data["status"] in ("completed", "failed", "expired", "cancelled"):
            return FakeResponse(200, data)
        fault = self.batch_fault(batch.number) if self.batch_fault is not None else None
        if batch.cancelling:
            data["status"] = "cancelled"
        elif batch.step == 0:
            errors = self._validate(batch) if fault != "fail" else [_error("invalid", None)]
            if errors:
                data["status"] = "failed"
                data["errors"] = {"object": "list", "data": errors}
                return FakeResponse(200, data)
            batch.step = 1
        elif fault == "stall":
            pass
        elif fault == "expire" and batch.step >= 1:
            data["status"] = "expired"
            self._finish(batch, expired=True)
        else:
            batch.step += 1
            if STEPS[batch.step] == "completed":
                self._finish(batch, expired=False)
        if data["status"] not in ("expired", "cancelled", "completed"):
            data["status"] = STEPS[batch.step]
        return FakeResponse(200, data)

    def _validate(self, batch: _Batch) -> list[dict[str, Any]]:
        errors: list[dict[str, Any]] = []
        if len(batch.lines) > self.max_lines:
            errors.append(_error("too_many_requests", None, f"more than {self.max_lines} lines"))
        if sum(len(line) + 1 for line in batch.lines) > self.max_bytes:
            errors.append(_error("file_too_large", None, f"more than {self.max_bytes} bytes"))
        seen: set[str] = set()
        models: set[str] = set()
        for number, raw in enumerate(batch.lines, 1):
            try:
                line = json.loads(raw)
            except ValueError:
                errors.append(_error("invalid_json_line", number))
                continue
            custom_id = str(line.get("custom_id"))
            if custom_id in seen:
                errors.append(_error("duplicate_custom_id", number))
            seen.add(custom_id)
            if line.get("url") != batch.data["endpoint"]:
                errors.append(_error("mismatched_url", number))
            model = str((line.get("body") or {}).get("model"))
            if models and model not in models:
                errors.append(_error("mismatched_model", number))
            models.add(model)
        return errors

    def _finish(self, batch: _Batch, *, expired: bool) -> None:
        """Answer the lines: the output and error files of a completed or expired batch."""
        output: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        lines = [json.loads(raw) for raw in batch.lines]
        cut = (len(lines) + 1) // 2 if expired else len(lines)
        for number, line in enumerate(lines):
            result: dict[str, Any] = {"id": f"req-{number}", "custom_id": line["custom_id"]}
            if number >= cut:
                failed.append({**result, "response": None, "error": _EXPIRED})
                continue
            fault = self.line_fault(batch.number, number, line) if self.line_fault else None
            if fault == "drop":
                continue
            if isinstance(fault, int):
                body = error_body(f"injected HTTP {fault}", type_="invalid_request_error")
                response = {"status_code": fault, "request_id": f"r{number}", "body": body}
                failed.append({**result, "response": response, "error": None})
                continue
            assert self.answer is not None, "FakeBatches needs the server's answer function"
            answer = self.answer(line["body"])
            self.lines_answered += 1
            response = {"status_code": answer.status, "request_id": f"r{number}"}
            entry = {**result, "response": {**response, "body": answer.body}, "error": None}
            (output if answer.status == 200 else failed).append(entry)
        if self.shuffle:
            random.Random(self.seed + batch.number).shuffle(output)
        data = batch.data
        data["output_file_id"] = self._store(output)
        data["error_file_id"] = self._store(failed)
        data["request_counts"] = {
            "total": len(lines),
            "completed": len(output),
            "failed": len(failed),
        }

    def _store(self, items: list[dict[str, Any]]) -> str | None:
        if not items:
            return None
        file_id = self._new_id("file")
        self.files[file_id] = "".join(json.dumps(item) + "\n" for item in items).encode()
        return file_id


def _error(code: str, line: int | None, message: str | None = None) -> dict[str, Any]:
    return {"code": code, "line": line, "message": message or code.replace("_", " "), "param": None}
