// Embeds the kernels' fatbin (built by nvcc, see CMakeLists.txt) as read-only
// data: .incbin keeps the build free of a bin2c step and of nvcc's host pass.
#include "kernels/fatbin.h"

__asm__(".section .rodata\n"
        ".balign 64\n"
        ".globl omnirt_cuda_fatbin\n"
        ".hidden omnirt_cuda_fatbin\n"
        "omnirt_cuda_fatbin:\n"
        ".incbin \"" OMNIRT_CUDA_FATBIN_PATH "\"\n"
        ".globl omnirt_cuda_fatbin_end\n"
        ".hidden omnirt_cuda_fatbin_end\n"
        "omnirt_cuda_fatbin_end:\n"
        ".previous\n");
