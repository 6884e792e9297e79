/*
 * The second provider, shaped like HotSpot's hotspot_jni.d: its header
 * is included in the same translation unit as jv.d's.  A JNI byte
 * (signed char) and char (uint16_t) returned, pointers to pointers.
 */

provider jv_jni {
  probe GetByteField__return(char);
  probe GetCharField__return(uint16_t);
  probe GetCreatedJavaVMs__entry(void**, uintptr_t, uintptr_t*);
};

#pragma D attributes Standard/Standard/Common provider jv_jni provider
