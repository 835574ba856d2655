# omnirt_add_torch_engine_common(<engine target>): compiles what every TorchScript
# engine shares (bool-aware DLPack dtypes, forward's arguments, named outputs,
# exported tensors, captured warnings) into <engine target>, against the
# libtorch that target links: the cpu engine's Debian libtorch 1.13 and the
# cuda engine's PyTorch 2.x build the same sources.
include_guard(GLOBAL)

function(omnirt_add_torch_engine_common target)
  set(dir "${CMAKE_CURRENT_FUNCTION_LIST_DIR}")
  target_sources(${target} PRIVATE
    "${dir}/dl_dtype.cpp"
    "${dir}/exported_tensor.cpp"
    "${dir}/forward_signature.cpp"
    "${dir}/named_outputs.cpp"
    "${dir}/warning_capture.cpp")
  # "torch_engine/..." for these headers, "cpu/engine/dlpack_text.h" for dtype names.
  target_include_directories(${target} PRIVATE "${dir}/.." "${PROJECT_SOURCE_DIR}/plugins")
endfunction()
