"""Runs a real Triton server with the omnirt backend and talks KServe v2 HTTP to it.

Shared by the integration test (test_triton_server.py) and the benchmark
(../bench/triton_bench.py). Standard library and numpy only.

    with TritonServer(triton_root, repo, backends, args=[...]) as server:
        client = server.client()
        status, outputs = client.infer("mlp", [("x", array)])
"""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import time

import numpy as np

# KServe v2 datatypes <-> numpy. BF16 travels as its raw 16 bits (np.uint16):
# numpy has no bfloat16.
NUMPY_TYPES = {
    "BOOL": np.bool_, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32,
    "UINT64": np.uint64, "INT8": np.int8, "INT16": np.int16, "INT32": np.int32,
    "INT64": np.int64, "FP16": np.float16, "FP32": np.float32, "FP64": np.float64,
    "BF16": np.uint16,
}


def datatype_of(array):
    for name, dtype in NUMPY_TYPES.items():
        if name != "BF16" and array.dtype == dtype:
            return name
    raise ValueError(f"no KServe datatype for {array.dtype}")


def install_backend(library, backends_dir):
    """Installs libtriton_omnirt.so as Triton expects it: <backends_dir>/omnirt/."""
    target = os.path.join(backends_dir, "omnirt")
    os.makedirs(target, exist_ok=True)
    shutil.copy2(library, os.path.join(target, "libtriton_omnirt.so"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body) if self.body else None

    def error(self):
        """The "error" text of a failed call ("" when there is none)."""
        try:
            return (self.json() or {}).get("error", "")
        except ValueError:
            return self.body.decode(errors="replace")


class Client:
    """One HTTP/1.1 connection to the server (not thread-safe: one per thread)."""

    def __init__(self, port, timeout=60):
        self.port = port
        self.timeout = timeout
        self.connection = None

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def request(self, method, path, body=None, headers=None):
        for attempt in range(2):  # a kept-alive connection the server closed is reopened once
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            try:
                self.connection.request(method, path, body=body, headers=headers or {})
                reply = self.connection.getresponse()
                return Response(reply.status, dict(reply.getheaders()), reply.read())
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()
                if attempt == 1:
                    raise

    def get(self, path):
        return self.request("GET", path)

    def post_json(self, path, document=None):
        body = json.dumps(document).encode() if document is not None else b""
        return self.request("POST", path, body, {"Content-Type": "application/json"})

    # Model repository (--model-control-mode=explicit).
    def load(self, model):
        return self.post_json(f"/v2/repository/models/{model}/load")

    def unload(self, model):
        return self.post_json(f"/v2/repository/models/{model}/unload")

    def index(self):
        return {entry["name"]: entry for entry in self.post_json("/v2/repository/index").json()}

    def stats(self, model):
        return self.get(f"/v2/models/{model}/stats").json()["model_stats"][0]

    def infer(self, model, inputs, outputs=None, binary=False):
        """Runs `model` on inputs [(name, ndarray[, datatype])]; returns (Response,
        {output name: ndarray}) with the outputs it asked for (None: all).
        `binary` uses the binary tensor data extension both ways, else JSON."""
        header = {"inputs": [], "outputs": []}
        blobs = []
        for entry in inputs:
            name, array = entry[0], np.ascontiguousarray(entry[1])
            datatype = entry[2] if len(entry) > 2 else datatype_of(array)
            spec = {"name": name, "shape": list(array.shape), "datatype": datatype}
            if binary:
                blob = array.tobytes()
                spec["parameters"] = {"binary_data_size": len(blob)}
                blobs.append(blob)
            else:
                spec["data"] = array.flatten().tolist()
            header["inputs"].append(spec)
        for name in outputs or []:
            header["outputs"].append({"name": name, "parameters": {"binary_data": binary}})
        if not outputs:
            del header["outputs"]
            if binary:
                header["parameters"] = {"binary_data_output": True}
        text = json.dumps(header).encode()
        headers = {"Content-Type": "application/octet-stream" if binary else "application/json"}
        if binary:
            headers["Inference-Header-Content-Length"] = str(len(text))
        reply = self.request("POST", f"/v2/models/{model}/infer", text + b"".join(blobs), headers)
        if reply.status != 200:
            return reply, {}
        return reply, self._outputs(reply)

    @staticmethod
    def _outputs(reply):
        length = int(reply.headers.get("Inference-Header-Content-Length", len(reply.body)))
        document = json.loads(reply.body[:length])
        offset = length
        results = {}
        for out in document["outputs"]:
            dtype = NUMPY_TYPES[out["datatype"]]
            size = out.get("parameters", {}).get("binary_data_size")
            if size is not None:
                data = np.frombuffer(reply.body[offset:offset + size], dtype=dtype)
                offset += size
            else:
                data = np.array(out["data"], dtype=dtype)
            results[out["name"]] = data.reshape(out["shape"])
        return results


class TritonServer:
    """tritonserver on a free loopback port; stopped (SIGTERM, then SIGKILL)
    on exit of the `with` block, also when it raises."""

    def __init__(self, triton_root, repository, backends, args=(), log_path=None, env=None):
        self.binary = os.path.join(triton_root, "bin", "tritonserver")
        self.repository = repository
        self.backends = backends
        self.args = list(args)
        self.log_path = log_path or os.path.join(repository, os.pardir, "tritonserver.log")
        self.env = env
        self.process = None
        self.port = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self, ready_timeout=60):
        self.port = free_port()
        command = [self.binary, f"--model-repository={self.repository}",
                   f"--backend-directory={self.backends}", f"--http-port={self.port}",
                   "--exit-timeout-secs=1"] + self.args
        self.log_file = open(self.log_path, "ab")
        self.process = subprocess.Popen(command, stdout=self.log_file, stderr=subprocess.STDOUT,
                                        env=self.env, start_new_session=True)
        deadline = time.monotonic() + ready_timeout
        client = Client(self.port, timeout=5)
        try:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"tritonserver exited with {self.process.returncode}:\n{self.log_tail()}")
                try:
                    if client.get("/v2/health/ready").status == 200:
                        return
                except OSError:
                    client.close()
                time.sleep(0.2)
            raise RuntimeError(f"tritonserver not ready within {ready_timeout} s:\n{self.log_tail()}")
        except BaseException:
            self.stop()
            raise
        finally:
            client.close()

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=20)
        if self.process is not None:
            self.log_file.close()
        self.process = None

    def client(self, timeout=60):
        return Client(self.port, timeout)

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def log_tail(self, lines=40):
        return "\n".join(self.log().splitlines()[-lines:])

    def status(self, field):
        """A field of /proc/<pid>/status in kB (VmRSS)."""
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise KeyError(field)

    def open_fds(self):
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))
