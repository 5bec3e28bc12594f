# TfrtCompileFunctions.cmake - compile models ahead of time from CMake.
#
#   tfrt_compile_model(<target>
#     MODEL <file>                    .onnx, .json or .mlir (relative paths are
#                                     relative to CMAKE_CURRENT_SOURCE_DIR)
#     [FORMAT onnx|json|mlir]         default: from the file's extension
#     [NAME <prefix>]                 symbol prefix and file stem; a C
#                                     identifier; default: <target>
#     [INPUT_SHAPES <input>=<dims>...]  e.g. x=1x3x224x224 (x= is a scalar)
#     [CPU <mcpu>]                    default: ${TFRT_COMPILE_CPU}, else the
#                                     compiler's default (native, or generic
#                                     for a foreign TARGET_TRIPLE)
#     [TARGET_TRIPLE <triple>]        default: ${TFRT_COMPILE_TARGET_TRIPLE},
#                                     else CMAKE_<LANG>_COMPILER_TARGET when
#                                     cross-compiling, else the host
#     [OPTIONS <arg>...]              more tfrt-compile arguments (-O2,
#                                     --mattr=...)
#     [DEPENDS <file>...])            more inputs (e.g. external weights)
#
# Runs `tfrt-compile --emit=obj` into ${CMAKE_CURRENT_BINARY_DIR}/<target>/,
# producing <NAME>.o, <NAME>.h and <NAME>.json, and wraps the object in the
# static library <target>. Linking <target> brings the directory of <NAME>.h,
# tfrt::runtime and libm. The step reruns when the model, a DEPENDS file or
# the tfrt-compile executable changes.
#
# The compiler is ${TFRT_COMPILE_EXECUTABLE} when that variable is set, else
# the one the package was found with (or, inside the tfrt-compile build, the
# tfrt-compile target). See docs/build-integration.md.

include_guard(GLOBAL)

function(_tfrt_compile_model_error target)
  string(JOIN "" message ${ARGN})
  message(FATAL_ERROR "tfrt_compile_model(${target}): ${message}")
endfunction()

function(tfrt_compile_model target)
  set(options)
  set(one_value MODEL FORMAT NAME CPU TARGET_TRIPLE)
  set(multi_value INPUT_SHAPES OPTIONS DEPENDS)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "${options}" "${one_value}"
    "${multi_value}")

  if(ARG_UNPARSED_ARGUMENTS)
    list(JOIN ARG_UNPARSED_ARGUMENTS " " unparsed)
    _tfrt_compile_model_error(${target} "unexpected arguments: "
      "${unparsed} (known keywords: MODEL FORMAT NAME "
      "INPUT_SHAPES CPU TARGET_TRIPLE OPTIONS DEPENDS)")
  endif()
  foreach(keyword IN LISTS ARG_KEYWORDS_MISSING_VALUES)
    if(NOT keyword STREQUAL "OPTIONS" AND NOT keyword STREQUAL "DEPENDS")
      _tfrt_compile_model_error(${target} "${keyword} needs a value")
    endif()
  endforeach()
  if(TARGET ${target})
    _tfrt_compile_model_error(${target} "a target named '${target}' "
      "already exists")
  endif()

  # MODEL
  if(NOT DEFINED ARG_MODEL OR ARG_MODEL STREQUAL "")
    _tfrt_compile_model_error(${target} "MODEL <file> is required")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE
    BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}" OR IS_DIRECTORY "${model}")
    _tfrt_compile_model_error(${target} "MODEL file '${model}' does not "
      "exist")
  endif()

  # FORMAT
  set(formats onnx json mlir)
  if(DEFINED ARG_FORMAT)
    set(format "${ARG_FORMAT}")
    if(NOT format IN_LIST formats)
      _tfrt_compile_model_error(${target} "unknown FORMAT '${format}' "
        "(expected onnx, json or mlir)")
    endif()
  else()
    get_filename_component(ext "${model}" LAST_EXT)
    string(TOLOWER "${ext}" ext)
    string(REGEX REPLACE "^\\." "" format "${ext}")
    if(NOT format IN_LIST formats)
      _tfrt_compile_model_error(${target} "cannot tell the format of "
        "'${model}' from its extension '${ext}': add FORMAT onnx|json|mlir")
    endif()
  endif()

  # NAME
  set(c_identifier "^[A-Za-z_][A-Za-z0-9_]*$")
  if(DEFINED ARG_NAME)
    set(name "${ARG_NAME}")
    if(NOT name MATCHES "${c_identifier}")
      _tfrt_compile_model_error(${target} "NAME '${name}' is not a C "
        "identifier")
    endif()
  else()
    set(name "${target}")
    if(NOT name MATCHES "${c_identifier}")
      _tfrt_compile_model_error(${target} "no NAME given and the target "
        "name '${target}' is not a C identifier: add NAME <prefix>")
    endif()
  endif()

  # INPUT_SHAPES
  set(shape_args)
  foreach(shape IN LISTS ARG_INPUT_SHAPES)
    if(NOT shape MATCHES "^[^=]+=([0-9]+(x[0-9]+)*)?$")
      _tfrt_compile_model_error(${target} "malformed INPUT_SHAPES entry "
        "'${shape}': expected <input>=<D0>x<D1>x... (e.g. x=1x3x224x224, "
        "or x= for a scalar)")
    endif()
    list(APPEND shape_args "--input-shape=${shape}")
  endforeach()

  # CPU, TARGET_TRIPLE (defaults from the project's variables)
  set(target_args)
  if(NOT DEFINED ARG_CPU AND DEFINED TFRT_COMPILE_CPU
     AND NOT TFRT_COMPILE_CPU STREQUAL "")
    set(ARG_CPU "${TFRT_COMPILE_CPU}")
  endif()
  if(NOT DEFINED ARG_TARGET_TRIPLE AND DEFINED TFRT_COMPILE_TARGET_TRIPLE
     AND NOT TFRT_COMPILE_TARGET_TRIPLE STREQUAL "")
    set(ARG_TARGET_TRIPLE "${TFRT_COMPILE_TARGET_TRIPLE}")
  endif()
  if(NOT DEFINED ARG_TARGET_TRIPLE AND CMAKE_CROSSCOMPILING)
    if(CMAKE_C_COMPILER_TARGET)
      set(ARG_TARGET_TRIPLE "${CMAKE_C_COMPILER_TARGET}")
    elseif(CMAKE_CXX_COMPILER_TARGET)
      set(ARG_TARGET_TRIPLE "${CMAKE_CXX_COMPILER_TARGET}")
    else()
      message(WARNING "tfrt_compile_model(${target}): cross-compiling "
        "(CMAKE_SYSTEM_PROCESSOR ${CMAKE_SYSTEM_PROCESSOR}) without "
        "TARGET_TRIPLE: the model is compiled for the host; set TARGET_TRIPLE "
        "or TFRT_COMPILE_TARGET_TRIPLE")
    endif()
  endif()
  if(DEFINED ARG_CPU)
    list(APPEND target_args "--mcpu=${ARG_CPU}")
  endif()
  if(DEFINED ARG_TARGET_TRIPLE)
    list(APPEND target_args "--target-triple=${ARG_TARGET_TRIPLE}")
  endif()

  # OPTIONS: the function owns the kind, the name and the output directory.
  foreach(opt IN LISTS ARG_OPTIONS)
    if(opt MATCHES "^--?(emit|o|name|format|input-shape|compile-to)(=|$)"
       OR opt STREQUAL "-o")
      _tfrt_compile_model_error(${target} "OPTIONS must not contain "
        "'${opt}': use the function's own arguments (MODEL, FORMAT, NAME, "
        "INPUT_SHAPES); the output is always --emit=obj into "
        "${CMAKE_CURRENT_BINARY_DIR}/${target}/")
    endif()
  endforeach()

  # The compiler and what the step depends on for it.
  if(DEFINED TFRT_COMPILE_EXECUTABLE AND NOT TFRT_COMPILE_EXECUTABLE STREQUAL "")
    set(compiler "${TFRT_COMPILE_EXECUTABLE}")
  else()
    get_property(compiler GLOBAL PROPERTY TFRT_COMPILE_EXECUTABLE)
  endif()
  if(compiler STREQUAL "")
    _tfrt_compile_model_error(${target} "no tfrt-compile: this TfrtCompile "
      "package holds the runtime only; set TFRT_COMPILE_EXECUTABLE to a "
      "tfrt-compile executable")
  endif()
  if(TARGET "${compiler}")
    # Inside the tfrt-compile build: the target's executable, built first.
    set(compiler_command "$<TARGET_FILE:${compiler}>")
    set(compiler_depends "${compiler}")
  else()
    if(NOT IS_ABSOLUTE "${compiler}" OR NOT EXISTS "${compiler}")
      _tfrt_compile_model_error(${target} "tfrt-compile '${compiler}' does "
        "not exist (TFRT_COMPILE_EXECUTABLE must be an absolute path)")
    endif()
    set(compiler_command "${compiler}")
    set(compiler_depends "${compiler}")
  endif()

  # The library archives an object only; it needs a linker language.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("C" IN_LIST languages)
    set(linker_language C)
  elseif("CXX" IN_LIST languages)
    set(linker_language CXX)
  else()
    _tfrt_compile_model_error(${target} "the project enables neither C nor "
      "CXX; enable one (project(... LANGUAGES C)) to archive the model")
  endif()

  set(extra_depends)
  foreach(dep IN LISTS ARG_DEPENDS)
    get_filename_component(dep "${dep}" ABSOLUTE
      BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND extra_depends "${dep}")
  endforeach()

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  set(object "${out_dir}/${name}.o")
  set(header "${out_dir}/${name}.h")
  set(metadata "${out_dir}/${name}.json")
  file(RELATIVE_PATH shown_model "${CMAKE_SOURCE_DIR}" "${model}")
  if(shown_model MATCHES "^\\.\\./")
    set(shown_model "${model}")
  endif()

  add_custom_command(
    OUTPUT "${object}" "${header}" "${metadata}"
    COMMAND "${compiler_command}" "${model}" "--format=${format}"
            "--name=${name}" --emit=obj "-o" "${out_dir}/"
            ${shape_args} ${target_args} ${ARG_OPTIONS}
    DEPENDS "${model}" ${extra_depends} ${compiler_depends}
    COMMENT "tfrt-compile ${shown_model} -> ${target}/${name}.o"
    VERBATIM)
  set_source_files_properties("${object}" PROPERTIES
    EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set_source_files_properties("${header}" "${metadata}" PROPERTIES
    GENERATED TRUE HEADER_FILE_ONLY TRUE)

  add_library(${target} STATIC "${object}" "${header}" "${metadata}")
  set_target_properties(${target} PROPERTIES
    LINKER_LANGUAGE ${linker_language}
    TFRT_MODEL_NAME "${name}"
    TFRT_MODEL_HEADER "${header}"
    TFRT_MODEL_METADATA "${metadata}")
  target_include_directories(${target} PUBLIC "${out_dir}")
  target_link_libraries(${target} PUBLIC tfrt::runtime m)
endfunction()
