#!/usr/bin/env python3
"""Writes bert-ddp-4rank/rank{0..3}.pt.trace.json.gz: a generated (not measured) profile of two
training steps of a 6-layer BERT-base-sized encoder (batch 4 per rank, sequence 128, fp16 on
A100s) under PyTorch DistributedDataParallel on 4 ranks, one Kineto trace per rank as
torch.profiler's tensorboard_trace_handler writes them.

What a real job of that kind shows, and what the Trace page is for:
- each step starts with the data loader on the CPU while the GPU waits (host-bound idle), then
  copies the batch to the device (a memcpy);
- the forward's small kernels (softmax, dropout, bmm) finish before the CPU has launched the
  next (more host-bound gaps); the backward's GEMMs keep the GPU ahead of the CPU;
- DDP all-reduces the gradients in buckets of two layers, with NCCL kernels on a stream of their
  own that overlap the backward of the layers below; the last bucket's all-reduce is exposed;
- a collective ends on every rank when the slowest rank has joined it, so a fast rank's NCCL
  kernels last longer (they wait for the straggler), and the optimizer's kernels wait for the
  last all-reduce (idle, waiting on another stream);
- ranks differ: rank 2's GPU runs 7 % slower (a straggler), rank 3's data loader is slower, and
  every rank's clock has its own origin.

The kernel names, shapes and durations of one layer are those of the BERT-layer fixture
(tests/fixtures/trace/kineto/make_fixtures.py, imported from there so that both stay one
description). Standard library only; the output is deterministic (gzip without a timestamp).
Run from anywhere:  python3 samples/traces/make_ddp_step.py
"""
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ left in the fixtures folder
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "fixtures", "trace", "kineto"))
import make_fixtures as bert  # noqa: E402  (the BERT layer: kernel names, shapes, durations)

H = bert.H
WORLD = 4
LAYERS = 6
BUCKET_LAYERS = 2
STEPS = (10, 11)
COMPUTE_STREAM, NCCL_STREAM = 7, 13
# Per rank: GPU slowdown (rank 2 is the straggler), CPU slowdown, data-loader time per step (us).
GPU_SLOW = (1.00, 1.02, 1.07, 1.01)
CPU_SLOW = (1.00, 1.05, 0.97, 1.10)
LOADER_US = ((180.0, 150.0), (240.0, 210.0), (160.0, 170.0), (420.0, 380.0))
CLOCK_ORIGIN_US = (0.0, 1375.25, 310.5, 2048.75)  # each rank's own clock
NCCL = "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
ADAM = ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
        "(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::"
        "FusedAdamMathFunctor<c10::Half, 4, (at::native::ADAM_MODE)1, false>, double*, double, "
        "double, double, double, double, bool, double*, double*>")
LAYER_PARAMS = 768 * 2304 + 2304 + 768 * 768 + 768 + 768 * 3072 + 3072 + 3072 * 768 + 768 + 4 * 768
# A ring all-reduce moves 2 (n-1)/n of the message over each link: at ~230 GB/s of NVLink bus
# bandwidth, 28 MB of fp16 gradients take about 190 us.
BUS_BYTES_PER_US = 230e3

FORWARD = [(outers, inner, kernel, us) for outers, inner, kernel, us, tid in bert.STEP
           if tid == bert.MAIN]


def bw(name):
    return [("autograd::engine::evaluate_function: " + name, None, None), (name, None, None)]


def mm(a, b):
    return ("aten::mm", [a, b], [H, H])


def bmm(a, b):
    return ("aten::bmm", [a, b], [H, H])


# One layer's backward, in the order autograd runs it: (outer operators, innermost, kernel, us).
BACKWARD = [
    (bw("NativeLayerNormBackward0"), bert.STEP[13][1], bert.LAYERNORM_BW, 13.0),
    (bw("AddmmBackward0"), mm([512, 768], [768, 3072]), bert.GEMM, 49.0),
    (bw("AddmmBackward0"), mm([768, 512], [512, 3072]), bert.GEMM, 47.5),
    (bw("GeluBackward0"), bert.STEP[16][1], bert.GELU_BW, 21.0),
    (bw("AddmmBackward0"), mm([512, 3072], [3072, 768]), bert.GEMM, 50.0),
    (bw("AddmmBackward0"), mm([3072, 512], [512, 768]), bert.GEMM, 48.0),
    (bw("NativeLayerNormBackward0"), bert.STEP[13][1], bert.LAYERNORM_BW, 13.0),
    (bw("AddmmBackward0"), mm([512, 768], [768, 768]), bert.GEMM, 17.0),
    (bw("AddmmBackward0"), mm([768, 512], [512, 768]), bert.GEMM, 16.5),
    (bw("BmmBackward0"), bmm([48, 128, 128], [48, 128, 64]), bert.BMM, 9.75),
    (bw("BmmBackward0"), bmm([48, 128, 64], [48, 64, 128]), bert.BMM, 9.5),
    (bw("SoftmaxBackward0"), bert.STEP[17][1], bert.SOFTMAX_BW, 12.5),
    (bw("BmmBackward0"), bmm([48, 128, 64], [48, 64, 128]), bert.BMM, 9.5),
    (bw("BmmBackward0"), bmm([48, 64, 128], [48, 128, 128]), bert.BMM, 9.75),
    (bw("AddmmBackward0"), mm([512, 2304], [2304, 768]), bert.GEMM, 40.0),
    (bw("AddmmBackward0"), mm([2304, 512], [512, 768]), bert.GEMM, 39.0),
]


class Rank:
    """One rank's events, in job time (microseconds); written on the rank's own clock."""

    def __init__(self, rank):
        self.rank = rank
        self.pid = 2000 + rank
        self.main, self.autograd = self.pid, self.pid + 8
        self.events = []
        self.ext, self.corr = 1, 1000 * (rank + 1)
        self.gpu_free = {COMPUTE_STREAM: 0.0, NCCL_STREAM: 0.0}

    def cpu(self, us):
        return us * CPU_SLOW[self.rank]

    def cpu_op(self, name, ts, dur, tid, dims=None, types=None, extra=None, cat="cpu_op"):
        args = {"External id": self.ext, "Record function id": 0}
        if dims is not None:
            args["Input Dims"] = dims
            args["Input type"] = types
        args.update(extra or {})
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": self.pid, "tid": tid,
                            "ts": ts, "dur": dur, "args": args})
        self.ext += 1

    def launch(self, tid, ts, name="cudaLaunchKernel", dur=5.0):
        self.corr += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": self.pid,
                            "tid": tid, "ts": ts, "dur": self.cpu(dur),
                            "args": {"External id": self.ext, "cbid": 211,
                                     "correlation": self.corr}})
        return self.corr

    def gpu(self, cat, name, stream, start, dur, corr, extra=None):
        args = {"External id": self.ext, "queued": 0, "device": 0, "context": 1,
                "stream": stream, "correlation": corr}
        args.update(extra or {})
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream,
                            "ts": start, "dur": dur, "args": args})
        self.gpu_free[stream] = max(self.gpu_free[stream], start + dur)

    def operator(self, t, tid, outers, inner, kernel, kernel_us, after=0.0):
        """Nested CPU operators launching one kernel on the compute stream, laid out as the
        fixture's (each outer 2 us before the next, the innermost 6 us with a 5 us launch); the
        kernel starts once launched and once the stream is free (and not before `after`).
        Returns the CPU time the next operator starts at."""
        depth = len(outers)
        for i, (name, dims, types) in enumerate(outers):
            self.cpu_op(name, t + self.cpu(2 * i), self.cpu(6 + 4 * (depth - i)), tid, dims, types)
        inner_start = t + self.cpu(2 * depth)
        self.cpu_op(inner[0], inner_start, self.cpu(6), tid, inner[1], inner[2])
        launch_at = inner_start + self.cpu(0.5)
        corr = self.launch(tid, launch_at)
        start = max(launch_at + 6.0, self.gpu_free[COMPUTE_STREAM], after)
        self.gpu("kernel", kernel, COMPUTE_STREAM, start, kernel_us * GPU_SLOW[self.rank], corr)
        return t + self.cpu(6 + 4 * depth + 2 * depth + 9)

    def written(self):
        """The events on the rank's clock: 3 decimals, as Kineto writes microseconds."""
        out = []
        for e in self.events:
            e = dict(e)
            e["ts"] = round(e["ts"] + CLOCK_ORIGIN_US[self.rank], 3)
            e["dur"] = round(e["dur"], 3)
            out.append(e)
        # Enclosing events first at equal times, as the profiler writes them.
        return sorted(out, key=lambda e: (e["ts"], -e["dur"], e["pid"], e["tid"]))


def step_until_allreduce(r, t, step_index):
    """The CPU side and the compute stream of one step up to the last bucket's all-reduce.
    Returns (CPU time after the backward, [(launch time, ready time) per bucket], step start)."""
    step_start = t
    loader = LOADER_US[r.rank][step_index]
    r.cpu_op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, r.cpu(loader),
             r.main, cat="user_annotation")
    t += r.cpu(loader) + 4
    # The batch (input ids and attention mask, int64 [4, 128] each, and labels) to the device.
    r.cpu_op("aten::to", t, r.cpu(14), r.main, [[4, 128], [], [], [], []], ["long int", "", "", "", ""])
    r.cpu_op("aten::copy_", t + r.cpu(2), r.cpu(10), r.main, [[4, 128], [4, 128], []],
             ["long int", "long int", "Scalar"])
    corr = r.launch(r.main, t + r.cpu(3), "cudaMemcpyAsync", 6.0)
    r.gpu("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", COMPUTE_STREAM,
          max(t + r.cpu(3) + 5, r.gpu_free[COMPUTE_STREAM]), 2.5, corr, {"bytes": 12288})
    t += r.cpu(18)
    for _layer in range(LAYERS):
        for outers, inner, kernel, us in FORWARD:
            t = r.operator(t, r.main, outers, inner, kernel, us)
    # loss.backward(): the autograd thread runs the backward, layer by layer from the top.
    r.cpu_op("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", t, r.cpu(3),
             r.autograd)
    t += r.cpu(8)
    buckets = []
    for layer in range(LAYERS):
        for outers, inner, kernel, us in BACKWARD:
            t = r.operator(t, r.autograd, outers, inner, kernel, us)
        if (layer + 1) % BUCKET_LAYERS == 0:
            # DDP's reducer launches the bucket's all-reduce once its last gradient is ready; the
            # NCCL stream waits for the compute stream (an event) before it starts.
            buckets.append((t, r.gpu_free[COMPUTE_STREAM]))
            t += r.cpu(30)
    return t, buckets, step_start


def allreduce_times(ready):
    """Per bucket, per rank (start, end) in job time: a rank's kernel starts when it is launched
    and its stream is free, and every rank's ends when the last one has joined, plus the
    transfer."""
    elements = BUCKET_LAYERS * LAYER_PARAMS
    transfer_us = 2 * (WORLD - 1) / WORLD * elements * 2 / BUS_BYTES_PER_US
    free = [0.0] * WORLD
    out = []
    for b in range(len(ready[0])):
        starts = [max(ready[k][b], free[k]) for k in range(WORLD)]
        end = max(starts) + transfer_us
        out.append([(s, end) for s in starts])
        free = [end] * WORLD
    return out, elements


def main():
    ranks = [Rank(k) for k in range(WORLD)]
    t = [0.0] * WORLD
    for step_index, step in enumerate(STEPS):
        after, launches, ready, starts = [], [], [], []
        for r in ranks:
            cpu_end, buckets, start = step_until_allreduce(r, t[r.rank], step_index)
            after.append(cpu_end)
            starts.append(start)
            launches.append([cpu for cpu, _ in buckets])
            # A bucket's NCCL kernel can start once launched and once its gradients are in.
            ready.append([max(cpu + 6.0, gpu) for cpu, gpu in buckets])
        times, elements = allreduce_times(ready)
        for r in ranks:
            k = r.rank
            for b, cpu in enumerate(launches[k]):
                r.cpu_op("nccl:all_reduce", cpu - r.cpu(1), r.cpu(12), r.autograd,
                         extra={"In msg nelems": elements, "Out msg nelems": elements,
                                "dtype": "Half", "Group size": WORLD})
                corr = r.launch(r.autograd, cpu)
                start, end = times[b][k]
                r.gpu("kernel", NCCL, NCCL_STREAM, start, end - start, corr,
                      {"In msg nelems": elements, "dtype": "Half"})
            # optimizer.step(): fused AdamW over the parameters, once the last all-reduce is in
            # (the compute stream waits for the NCCL stream's event).
            c = after[k] + r.cpu(40)
            r.cpu_op("Optimizer.step#AdamW.step", c, r.cpu(70), r.main, cat="user_annotation")
            last = times[-1][k][1]
            for i in range(4):
                c = r.operator(c + r.cpu(2), r.main, [], ("aten::_fused_adamw_", None, None), ADAM,
                               38.0, after=last)
            # loss.item(): a 4-byte copy back, and the CPU waits for it (the step's end).
            corr = r.launch(r.main, c + r.cpu(3), "cudaMemcpyAsync", 5.0)
            copy_start = max(c + r.cpu(3) + 5, r.gpu_free[COMPUTE_STREAM])
            r.cpu_op("aten::_local_scalar_dense", c, copy_start + 2 - c + r.cpu(6), r.main,
                     [[]], ["float"])
            r.gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", COMPUTE_STREAM, copy_start,
                  1.5, corr, {"bytes": 4})
            end = copy_start + 1.5 + r.cpu(8)
            r.cpu_op("ProfilerStep#%d" % step, starts[k], end - starts[k], r.main,
                     cat="user_annotation")
            t[k] = end + r.cpu(6)
    out = os.path.join(HERE, "bert-ddp-4rank")
    os.makedirs(out, exist_ok=True)
    for r in ranks:
        write(os.path.join(out, "rank%d.pt.trace.json.gz" % r.rank), r)


def write(path, r):
    head = {
        "schemaVersion": 1,
        "distributedInfo": {"backend": "nccl", "rank": r.rank, "world_size": WORLD},
        "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85198045184,
                              "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
    }
    lines = ["{"]
    for key, value in head.items():
        lines.append("  %s: %s," % (json.dumps(key), json.dumps(value)))
    lines.append('  "traceEvents": [')
    lines.append(",\n".join("  " + json.dumps(e) for e in r.written()))
    lines.append("  ],")
    lines.append('  "traceName": "rank%d.pt.trace.json",' % r.rank)
    lines.append('  "displayTimeUnit": "ms",')
    lines.append('  "baseTimeNanoseconds": 1700000000000000000')
    lines.append("}")
    data = ("\n".join(lines) + "\n").encode()
    with open(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
            gz.write(data)


if __name__ == "__main__":
    main()
