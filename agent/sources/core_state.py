"""The TPU cores' state (what ``tpu-info`` prints as TPU-Z), read from libtpu's runtime metrics
service with ``GetTpuRuntimeStatus``, summarised per core for the server.

Read only when the server asks (a stall): with ``include_hlo_info`` libtpu resolves each
sequencer's program counter to an HLO location, which costs it some work. The read goes to the
metrics service, never to the training process. Per core the summary keeps what tells where a
core is: the running program (fingerprint, shortened) and launch, the tensor-core sequencer's HLO
location and program counter, how many programs wait in its queue, and its error message.
"""

from __future__ import annotations

MAX_CORES = 64
MAX_TEXT = 200


def summarise(response) -> list[dict]:
    """One dict per core of a ``GetTpuRuntimeStatusResponse``, in global core order."""
    cores = []
    for core_id in sorted(response.core_states.keys())[:MAX_CORES]:
        state = response.core_states[core_id]
        seq = _main_sequencer(state.sequencer_info)
        hlo = ""
        if seq is not None and seq.HasField("hlo_location"):
            hlo = seq.hlo_location
        cores.append(
            {
                "core": int(core_id),
                "chip": int(state.core_id.chip_id),
                "type": _core_type(state.core_id.core_on_chip.type),
                "program": state.program_fingerprint.hex()[:16],
                "launch": int(state.launch_id),
                "hlo": hlo[:MAX_TEXT],
                "pc": int(seq.pc) if seq is not None else None,
                "queued": len(state.queued_program_info),
                "error": state.error_message[:MAX_TEXT],
            }
        )
    return cores


def _main_sequencer(sequencers):
    """The tensor-core sequencer (where the program runs), else the first one."""
    from tpu_info.proto import tpu_telemetry_pb2 as tel

    for seq in sequencers:
        if seq.sequencer_type == tel.TPU_SEQUENCER_TYPE_TENSOR_CORE_SEQUENCER:
            return seq
    return sequencers[0] if len(sequencers) else None


def _core_type(value: int) -> str:
    from tpu_info.proto import tpu_telemetry_pb2 as tel

    try:
        return tel.TpuCoreTypeProto.Name(value).removeprefix("TPU_CORE_TYPE_")
    except ValueError:
        return str(value)
