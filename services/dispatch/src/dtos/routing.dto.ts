import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';

const SERVICE_TYPES = ['sms', 'whatsapp', 'telegram', 'telegram_private'] as const;
const ADAPTERS = ['smpp', 'simulator', 'whatsapp', 'telegram_bot', 'telegram_private'] as const;

export class CountryRouteDto {
  @IsString() @Matches(/^[A-Za-z]{2}$/, { message: 'iso2 must be a 2-letter country code' })
  iso2!: string;

  @IsIn(SERVICE_TYPES)
  serviceType!: (typeof SERVICE_TYPES)[number];

  /** Vendors in failover order; empty removes the route. */
  @IsArray() @ArrayMaxSize(4) @Matches(/^\d{1,18}$/, { each: true, message: 'each vendor id must be a decimal id' })
  vendorIds!: string[];
}

export class CustomerCountryRouteDto extends CountryRouteDto {
  @IsString() @Matches(/^\d{1,18}$/, { message: 'customerId must be a decimal id' })
  customerId!: string;
}

export class CreateVendorDto {
  @IsString() @Length(1, 120)
  name!: string;

  @IsIn(SERVICE_TYPES)
  service_type!: (typeof SERVICE_TYPES)[number];

  @IsIn(ADAPTERS)
  adapter!: (typeof ADAPTERS)[number];

  @IsOptional() @IsObject()
  config?: Record<string, unknown>;

  @IsOptional() @IsString() @MaxLength(120)
  carrier?: string;

  @IsOptional() @IsString() @MaxLength(120)
  product_name?: string;

  @IsOptional() @IsString() @MaxLength(120)
  product_id?: string;

  @IsOptional() @IsString() @Matches(/^[A-Z]{3}$/, { message: 'currency must be a 3-letter code' })
  currency?: string;

  @IsOptional() @IsBoolean()
  active?: boolean;

  @IsOptional() @IsInt() @Min(1) @Max(4)
  routingProvider?: number;
}

export class UpdateVendorDto {
  @IsOptional() @IsString() @Length(1, 120)
  name?: string;

  @IsOptional() @IsObject()
  config?: Record<string, unknown>;

  @IsOptional() @IsString() @MaxLength(120)
  carrier?: string;

  @IsOptional() @IsString() @MaxLength(120)
  product_name?: string;

  @IsOptional() @IsString() @MaxLength(120)
  product_id?: string;

  @IsOptional() @IsString() @Matches(/^[A-Z]{3}$/, { message: 'currency must be a 3-letter code' })
  currency?: string;

  @IsOptional() @IsBoolean()
  active?: boolean;
}

export class UpdateChannelDto {
  @IsOptional() @IsString() @Length(1, 120)
  name?: string;

  @IsOptional() @IsBoolean()
  active?: boolean;

  @IsOptional() @IsArray() @ArrayMinSize(0) @ArrayMaxSize(10) @IsString({ each: true })
  stsMethods?: string[];

  @IsOptional() @IsInt() @Min(1) @Max(4)
  routingProvider?: number;
}
