# OmniRT's Debian packages (omnirt_deb_package(), cmake/OmniRTDebian.cmake),
# built by the target `debs` into <build>/debs. The host's packages share the
# host's version; each backend has its own (plugins/<name>/VERSION):
#
#   libomnirt<major>            runtime          libomnirt.so.<major>, the host
#   omnirt-tools                tools            omnirt-probe, -run, -conformance
#   libomnirt-dev               devel            headers, CMake package, omnirt.pc,
#                                                backend template, onboarding guide
#   python3-omnirt              python           the Python package omnirt
#   triton-backend-omnirt       triton           <libdir>/triton/backends/omnirt/
#   omnirt-backend-<name>       backend-<name>   libomnirt_backend_<name>.so
#   omnirt-backend-<name>-engine  backend-<name>-engine  its TorchScript engine
#
# The host's version leads with the ABI it implements, then the host's own
# release: 1.1+0.1.0. So a backend depends on the host by ABI major,
# libomnirt1 (>= 1.0), and a program linking libomnirt on the ABI minor its
# headers describe (shlibs: libomnirt1 (>= 1.1)), whatever the host release.
get_target_property(abi_major omnirt::abi OMNIRT_ABI_VERSION_MAJOR)
get_target_property(abi_minor omnirt::abi OMNIRT_ABI_VERSION_MINOR)
set(host_version "${abi_major}.${abi_minor}+${PROJECT_VERSION}")
set(host_package "libomnirt${abi_major}")
set(copyright "${CMAKE_CURRENT_LIST_DIR}/copyright")

omnirt_deb_package(${host_package}
  COMPONENTS runtime
  VERSION "${host_version}"
  SECTION libs
  MULTI_ARCH same
  SHLIBS "${abi_major}.${abi_minor}"
  SUGGESTS omnirt-tools omnirt-backend-cpu
  COPYRIGHT "${copyright}"
  SUMMARY "OmniRT runtime host: loads and routes to backend plugins"
  DESCRIPTION [[
OmniRT is a small C ABI runtime host with per-vendor backend plugins, built
for model serving. An inference server embeds the host; at startup it finds
the libomnirt_backend_<name>.so plugins, negotiates an ABI version with each,
asks whether it can run here and what it can do, and then routes module
wrapping (compile, kernel override, eager) and memory, stream and event calls
to the chosen backend.

This package contains the host library. Backends are packaged separately
(omnirt-backend-cpu, -cuda, -ascend, -cambricon), each with its own version,
and load from /usr/lib/<triplet>/omnirt/plugins.]])

omnirt_deb_package(omnirt-tools
  COMPONENTS tools
  VERSION "${host_version}"
  SECTION utils
  MULTI_ARCH foreign
  SUGGESTS omnirt-backend-cpu
  COPYRIGHT "${copyright}"
  SUMMARY "OmniRT tools: probe, run and certify backend plugins"
  DESCRIPTION [[
OmniRT is a small C ABI runtime host with per-vendor backend plugins, built
for model serving.

This package contains the command line tools: omnirt-probe lists the backends
found on this machine, their devices and capabilities, and why each rejected
plugin file was rejected; omnirt-run runs a model through a backend and prints
its run report; omnirt-conformance certifies a backend plugin against the
plugin rules.]])

omnirt_deb_package(libomnirt-dev
  COMPONENTS devel
  VERSION "${host_version}"
  SECTION libdevel
  MULTI_ARCH same
  DEPENDS "${host_package} (= ${host_version})" libdlpack-dev
  COPYRIGHT "${copyright}"
  SUMMARY "OmniRT runtime host: development files and backend template"
  DESCRIPTION [[
OmniRT is a small C ABI runtime host with per-vendor backend plugins, built
for model serving.

This package contains what embedders and backend vendors build against: the C
ABI headers, the C++ plugin helper and embedder wrapper, the CMake package
(find_package(omnirt): omnirt::abi, omnirt::host, omnirt_add_backend() and
omnirt_backend_deb() to package a backend like the in-tree ones), omnirt.pc,
and the template of a new backend (/usr/share/omnirt/backend-template) with
its onboarding guide.]])

if(TARGET omnirt_python)
  # The extension is built for one CPython minor: its file name says which.
  get_target_property(suffix omnirt_python SUFFIX)
  if(NOT suffix MATCHES "^\\.cpython-3([0-9]+)-")
    message(FATAL_ERROR "python3-omnirt: cannot tell the CPython version from '${suffix}'")
  endif()
  math(EXPR next "${CMAKE_MATCH_1} + 1")
  omnirt_deb_package(python3-omnirt
    COMPONENTS python
    VERSION "${host_version}"
    SECTION python
    DEPENDS "python3 (>= 3.${CMAKE_MATCH_1}~)" "python3 (<< 3.${next})"
    SUGGESTS python3-numpy python3-torch omnirt-backend-cpu
    COPYRIGHT "${copyright}"
    SUMMARY "OmniRT runtime host: Python 3 package"
    DESCRIPTION [[
OmniRT is a small C ABI runtime host with per-vendor backend plugins, built
for model serving.

This package contains the Python package omnirt: the host from Python, modules
wrapped through the compile, override and eager tiers, tensors exchanged with
torch and numpy through DLPack without copies, and the BackendRuntime contract
of the OmniRT Python project (omnirt.compat). torch and numpy are optional.]])
endif()

if(TARGET triton_omnirt)
  set(backends_dir "${OMNIRT_TRITON_BACKENDS_DIR}")
  if(NOT IS_ABSOLUTE "${backends_dir}")
    set(backends_dir "/usr/${backends_dir}")
  endif()
  omnirt_deb_package(triton-backend-omnirt
    COMPONENTS triton
    VERSION "${host_version}"
    SECTION libs
    MULTI_ARCH same
    COPYRIGHT "${copyright}"
    SUMMARY "Triton Inference Server backend serving models through OmniRT"
    DESCRIPTION "\
OmniRT is a small C ABI runtime host with per-vendor backend plugins, built
for model serving.

This package contains libtriton_omnirt.so, a Triton Inference Server backend
named omnirt that serves TorchScript models through OmniRT on whichever
backend fits each model instance. It is installed in Triton's layout, as
${backends_dir}/omnirt: start tritonserver with
--backend-directory=${backends_dir}, or link that omnirt folder into the
backend directory of an existing server.")
endif()

# One package per backend, one per TorchScript engine, and one for the cpu
# backend's gloo collectives: a backend runs without either companion (it then
# reports no module format, or no collectives), and each needs a large
# dependency (libtorch, gloo with its transports) the backend's users may not
# want.
set(cpu_summary "OmniRT backend for the CPU")
set(cpu_description [[
The cpu backend is always available: host memory with exact statistics,
ordered streams on worker threads, timed events, graph capture and reference
named-op kernels. Modules run on its TorchScript engine
(omnirt-backend-cpu-engine), loaded on first use.]])
set(cuda_summary "OmniRT backend for NVIDIA GPUs (CUDA)")
set(cuda_description [[
The cuda backend binds the CUDA runtime at run time (it links no CUDA library:
without a driver it reports itself unavailable, with the reason): streams,
events, a caching allocator, graph capture and hand-written kernels. Modules
run on its TorchScript engine (omnirt-backend-cuda-engine), built against a
CUDA-enabled libtorch.]])
set(ascend_summary "OmniRT backend for Huawei Ascend NPUs (ACL)")
set(ascend_description [[
The ascend backend binds the Ascend Computing Language runtime (libascendcl.so
from CANN) at run time; without it the backend reports itself unavailable, with
the reason. What ACL lacks is reported as not supported.]])
set(cambricon_summary "OmniRT backend for Cambricon MLUs (CNRT)")
set(cambricon_description [[
The cambricon backend binds the Cambricon runtime (libcnrt.so from Neuware) at
run time; without it the backend reports itself unavailable, with the reason.
What CNRT lacks is reported as not supported.]])
set(backend_preamble [[
OmniRT is a small C ABI runtime host with per-vendor backend plugins, built
for model serving. Each backend ships and is versioned on its own, and works
with any host of the ABI major it was built for.]])

# A backend's companion library <kind> (libomnirt_<backend>_<kind>.so, the
# component backend-<backend>-<kind>) as a package of its own, tied to the
# backend's version; sets <out> to the dependency the backend names it by.
function(omnirt_companion_deb backend kind version summary text out)
  set(package "omnirt-backend-${backend}-${kind}")
  omnirt_deb_package(${package}
    COMPONENTS backend-${backend}-${kind}
    VERSION "${version}"
    SECTION libs
    MULTI_ARCH same
    DEPENDS "omnirt-backend-${backend} (= ${version})"
    COPYRIGHT "${copyright}"
    SUMMARY "${${backend}_summary}: ${summary}"
    DESCRIPTION "${backend_preamble}

${text}")
  set(${out} "${package} (= ${version})" PARENT_SCOPE)
endfunction()

foreach(backend cpu cuda ascend cambricon)
  if(NOT TARGET omnirt_backend_${backend})
    continue()
  endif()
  get_target_property(version omnirt_backend_${backend} OMNIRT_BACKEND_VERSION)
  set(recommends "")
  if(TARGET omnirt_${backend}_engine)
    omnirt_companion_deb(${backend} engine "${version}" "TorchScript engine" "\
This package contains the ${backend} backend's TorchScript engine
(libomnirt_${backend}_engine.so), which the backend loads from its own folder
when it first loads a module. It is built against libtorch, and versioned with
the backend." recommends)
  endif()
  set(suggests "")
  if(TARGET omnirt_${backend}_gloo)
    omnirt_companion_deb(${backend} gloo "${version}" "collectives over gloo" "\
This package contains the ${backend} backend's collectives library
(libomnirt_${backend}_gloo.so): communicators over TCP through gloo, which the
backend loads from its own folder on its first communicator. Without it the
backend has no collectives and says so." suggests)
  endif()
  omnirt_backend_deb(${backend}
    RECOMMENDS ${recommends}
    SUGGESTS ${suggests}
    COPYRIGHT "${copyright}"
    SUMMARY "${${backend}_summary}"
    DESCRIPTION "${backend_preamble}

${${backend}_description}")
endforeach()
