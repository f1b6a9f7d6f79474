#include <lcms2.h>

// The pixel formats and flags Tessera uses, as constants: Swift does not import lcms2's macros that
// build them from shifts.
static const cmsUInt32Number tsr_lcms_rgba_float = TYPE_RGBA_FLT;
static const cmsUInt32Number tsr_lcms_gray_float = TYPE_GRAY_FLT;
static const cmsUInt32Number tsr_lcms_copy_alpha = cmsFLAGS_COPY_ALPHA;
static const cmsUInt32Number tsr_lcms_no_cache = cmsFLAGS_NOCACHE;
static const cmsUInt32Number tsr_lcms_rgba_16 = TYPE_RGBA_16;
static const cmsUInt32Number tsr_lcms_gray_16 = TYPE_GRAY_16;
static const cmsUInt32Number tsr_lcms_no_optimize = cmsFLAGS_NOOPTIMIZE;
