#pragma once
/// @file Umbrella header: every public stet header, nothing from detail/.

#include <stet/access_log.hpp>
#include <stet/config.hpp>
#include <stet/cookies.hpp>
#include <stet/endpoint.hpp>
#include <stet/error.hpp>
#include <stet/form.hpp>
#include <stet/headers.hpp>
#include <stet/json_body.hpp>
#include <stet/method.hpp>
#include <stet/metrics.hpp>
#include <stet/multipart.hpp>
#include <stet/multipart_form.hpp>
#include <stet/request.hpp>
#include <stet/responder.hpp>
#include <stet/response.hpp>
#include <stet/route_params.hpp>
#include <stet/router.hpp>
#include <stet/server.hpp>
#include <stet/server_options.hpp>
#include <stet/signer.hpp>
#include <stet/static_files.hpp>
#include <stet/status.hpp>
#include <stet/test_request.hpp>
#include <stet/upload_file.hpp>
#include <stet/versions.hpp>
