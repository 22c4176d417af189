# Writes a learned model that a build does not embed as one api::load_model request, the file
# the site serves as models/<id>.json: {"id": ID, "files": {ROLE: "<the file's text>", ...}},
# the roles and files as the model's manifest.json lists them, each text byte for byte.
# Usage: cmake -DMODEL_DIR=core/data/models/<id> -DOUT=<file.json> -P model_request.cmake

file(READ "${MODEL_DIR}/manifest.json" manifest)
string(JSON id GET "${manifest}" id)
string(JSON role_count LENGTH "${manifest}" files)
set(files "")
math(EXPR last "${role_count} - 1")
foreach(i RANGE ${last})
  string(JSON role MEMBER "${manifest}" files ${i})
  string(JSON name GET "${manifest}" files "${role}")
  file(READ "${MODEL_DIR}/${name}" text)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  string(REPLACE "\n" "\\n" text "${text}")
  string(REPLACE "\r" "\\r" text "${text}")
  string(REPLACE "\t" "\\t" text "${text}")
  if(files)
    string(APPEND files ",")
  endif()
  string(APPEND files "\"${role}\":\"${text}\"")
endforeach()
file(WRITE "${OUT}.tmp" "{\"id\":\"${id}\",\"files\":{${files}}}\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
