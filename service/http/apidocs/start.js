// Swagger UI on this server's own contract. No validator badge (it would ask validator.swagger.io) and
// no remote configuration: everything the page asks for, it asks of this server.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  docExpansion: "list",
  tryItOutEnabled: false,
});
